import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The limits domain's table: attempts (requests, failed sign-ins, sign-ins that made an address
 * trusted) counted per key and fixed window, shared by every node and kept across restarts.
 */
export const limitsMigrations: Migration[] = [
	{
		version: 1,
		description: "attempt counters",
		statements: () => [
			`CREATE TABLE limit_counts (
				counter_key TEXT NOT NULL, window_start BIGINT NOT NULL, window_ms BIGINT NOT NULL,
				total BIGINT NOT NULL, expires_time BIGINT NOT NULL,
				PRIMARY KEY (counter_key, window_start)
			)`,
			// The periodic purge deletes by expiry.
			"CREATE INDEX limit_counts_by_expiry ON limit_counts (expires_time)",
		],
	},
];
