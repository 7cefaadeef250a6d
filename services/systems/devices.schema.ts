import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The devices domain's table: a device is one per (user, token). Tokens run to 4,096 characters,
 * more than a PostgreSQL index entry holds, so the key holds the token's SHA-256.
 */
export const devicesMigrations: Migration[] = [
	{
		version: 1,
		description: "user_devices",
		statements: () => [
			"CREATE TABLE user_devices (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, device_token TEXT NOT NULL, token_hash TEXT NOT NULL, platform TEXT, name TEXT, created_time BIGINT NOT NULL, UNIQUE (user_id, token_hash))",
			"CREATE INDEX user_devices_by_user ON user_devices (user_id, created_time, id)",
		],
	},
];
