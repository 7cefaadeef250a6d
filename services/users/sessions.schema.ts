import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The sessions domain's table: a session keyed by the SHA-256 of its token, with who it stands for
 * as of sign-in, and its sliding expiry.
 */
export const sessionsMigrations: Migration[] = [
	{
		version: 1,
		description: "sessions",
		statements: () => [
			`CREATE TABLE sessions (
				id TEXT PRIMARY KEY,
				user_id TEXT NOT NULL, user_name TEXT NOT NULL, display_name TEXT, roles TEXT NOT NULL,
				persistent INTEGER NOT NULL, ttl_ms BIGINT NOT NULL,
				created_time BIGINT NOT NULL, slid_time BIGINT NOT NULL, expires_time BIGINT NOT NULL
			)`,
			// The periodic purge deletes by expiry.
			"CREATE INDEX sessions_by_expiry ON sessions (expires_time)",
		],
	},
	{
		version: 2,
		description: "sessions by user",
		// Removing an account ends all its sessions.
		statements: () => ["CREATE INDEX sessions_by_user ON sessions (user_id)"],
	},
];
