import { Migration } from "../../shared/persistence/sql/migrations";

/** The exports domain's tables: exports with their status and progress, and the archives of finished ones. */
export const exportsMigrations: Migration[] = [
	{
		version: 1,
		description: "data_exports and data_export_archives",
		statements: () => [
			// caller: JSON of whom the archive is read as (so that the sweep can restart it); times in ms.
			`CREATE TABLE data_exports (
				id TEXT PRIMARY KEY, user_id TEXT NOT NULL, status TEXT NOT NULL, progress INTEGER NOT NULL,
				caller TEXT NOT NULL, run INTEGER NOT NULL,
				created_time BIGINT NOT NULL, updated_time BIGINT NOT NULL, completed_time BIGINT
			)`,
			// One's export under way; the sweep's unfinished exports gone quiet.
			"CREATE INDEX data_exports_by_user ON data_exports (user_id, status)",
			"CREATE INDEX data_exports_by_status ON data_exports (status, updated_time)",
			// Apart from the exports: a status read never loads an archive.
			"CREATE TABLE data_export_archives (export_id TEXT PRIMARY KEY, data TEXT NOT NULL, etag TEXT NOT NULL)",
		],
	},
];
