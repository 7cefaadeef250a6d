import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The sessions domain's tables: a session keyed by the SHA-256 of its token, with who it stands for
 * as of sign-in, and its sliding expiry; the refresh tokens of sessions, and the keys that sign bearer tokens.
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
	{
		version: 3,
		description: "refresh tokens and signing keys",
		statements: () => [
			`CREATE TABLE refresh_tokens (
				id TEXT PRIMARY KEY, session_key TEXT NOT NULL,
				created_time BIGINT NOT NULL, expires_time BIGINT NOT NULL, used_time BIGINT
			)`,
			// Ending a session removes its tokens; the periodic purge deletes by expiry.
			"CREATE INDEX refresh_tokens_by_session ON refresh_tokens (session_key)",
			"CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_time)",
			`CREATE TABLE signing_keys (
				kid TEXT PRIMARY KEY, sealed_private_key TEXT NOT NULL, public_jwk TEXT NOT NULL, created_time BIGINT NOT NULL
			)`,
		],
	},
];
