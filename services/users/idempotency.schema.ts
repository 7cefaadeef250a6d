import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The idempotency domain's table: one row per (caller, Idempotency-Key), named by a hash of both;
 * a claim while the first request runs, then its sealed answer until the row expires.
 */
export const idempotencyMigrations: Migration[] = [
	{
		version: 1,
		description: "idempotency keys",
		statements: () => [
			`CREATE TABLE idempotency_keys (
				key_id TEXT NOT NULL PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
				answer TEXT, expires_time BIGINT NOT NULL
			)`,
			// The periodic purge deletes by expiry.
			"CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_time)",
		],
	},
];
