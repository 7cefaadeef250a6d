import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The reports domain's tables: reports of abuse with how they were settled, and the administrators' audit log
 * (times in ms).
 */
export const reportsMigrations: Migration[] = [
	{
		version: 1,
		description: "reports and audit_log",
		statements: () => [
			`CREATE TABLE reports (
				id TEXT PRIMARY KEY,
				reporter_id TEXT NOT NULL, subject_type TEXT NOT NULL, subject_id TEXT NOT NULL,
				reason TEXT NOT NULL, status TEXT NOT NULL, created_time BIGINT NOT NULL,
				action TEXT, resolved_by TEXT, resolved_time BIGINT, note TEXT
			)`,
			// The queue by status, oldest first, and the reports of one subject.
			"CREATE INDEX reports_by_status ON reports (status, created_time, id)",
			"CREATE INDEX reports_by_subject ON reports (subject_type, subject_id)",
			`CREATE TABLE audit_log (
				id TEXT PRIMARY KEY,
				actor TEXT NOT NULL, operation TEXT NOT NULL, subject_id TEXT, details TEXT,
				created_time BIGINT NOT NULL
			)`,
			// The log, newest first.
			"CREATE INDEX audit_log_by_time ON audit_log (created_time, id)",
		],
	},
];
