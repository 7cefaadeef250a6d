import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The users domain's table: one row per user, its profile in columns (so that an update is one
 * statement and other services' name look-ups read columns, not documents), its case-folded user
 * name and e-mail address unique, and its credentials (never selected with the profile).
 */
export const usersMigrations: Migration[] = [
	{
		version: 1,
		description: "users",
		statements: () => [
			`CREATE TABLE users (
				id TEXT PRIMARY KEY,
				user_name TEXT, user_name_key TEXT,
				email TEXT, email_key TEXT,
				display_name TEXT,
				first_name TEXT, middle_name TEXT, last_name TEXT, suffix TEXT, about_me TEXT, job_title TEXT,
				company_name TEXT, company_address TEXT, company_city TEXT, company_state_province TEXT, company_postal_code TEXT, company_country TEXT,
				time_zone TEXT, experiences TEXT, certifications TEXT, interests TEXT, default_venue_id TEXT,
				password_hash TEXT, digest_ha1 TEXT, roles TEXT,
				cloaked INTEGER NOT NULL DEFAULT 0,
				created_time BIGINT NOT NULL, updated_time BIGINT NOT NULL
			)`,
			// Both engines let several rows leave a unique column NULL (a user without e-mail address).
			"CREATE UNIQUE INDEX users_user_name_key ON users (user_name_key)",
			"CREATE UNIQUE INDEX users_email_key ON users (email_key)",
			// AllUsers in creation order; cloaked in the index so hidden users are skipped without reading rows.
			"CREATE INDEX users_by_created ON users (created_time, id, cloaked)",
		],
	},
	{
		version: 2,
		description: "digest nonce counts",
		statements: () => [
			// The highest nc each Digest nonce was answered with: a replayed (nonce, nc) is refused on every node, across
			// restarts.
			"CREATE TABLE digest_nonces (nonce TEXT PRIMARY KEY, nc BIGINT NOT NULL, first_used BIGINT NOT NULL)",
			"CREATE INDEX digest_nonces_by_first_use ON digest_nonces (first_used)",
		],
	},
	{
		version: 3,
		description: "account deletions under way",
		statements: () => [
			// An account being deleted: its sweep finishes what a cut-off deletion left in the other domains.
			"CREATE TABLE account_deletions (user_id TEXT PRIMARY KEY, attempted_time BIGINT NOT NULL)",
		],
	},
];
