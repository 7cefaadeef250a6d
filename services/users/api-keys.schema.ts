import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The apikeys domain's table: an API key known by the SHA-256 of the key (never the key itself), its owner, the
 * scopes it is limited to (JSON text) and its life (times in ms).
 */
export const apiKeysMigrations: Migration[] = [
	{
		version: 1,
		description: "api_keys",
		statements: () => [
			`CREATE TABLE api_keys (
				id INTEGER PRIMARY KEY,
				key_hash TEXT NOT NULL UNIQUE, visible_key TEXT NOT NULL, name TEXT NOT NULL,
				user_id TEXT NOT NULL, user_name TEXT, scopes TEXT NOT NULL, notes TEXT,
				created_date BIGINT NOT NULL, expiry_date BIGINT, cancelled_date BIGINT
			)`,
			// A user's list, newest first, and the keys to drop with a user.
			"CREATE INDEX api_keys_by_user ON api_keys (user_id, created_date)",
		],
	},
];
