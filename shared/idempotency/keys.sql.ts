import { Migration } from "../persistence/sql/migrations";
import { SqlDatabase, SqlExecutor } from "../persistence/sql/database";
import { claimTakenOver, IdempotencyKeys, KeyClaim } from "./keys";

/** The migrations' domain: the table is every domain's (a file of each on SQLite, one table on PostgreSQL). */
export const keysDomain = "idempotency";

/**
 * One row per (caller, Idempotency-Key), named by a hash of both: a claim while the first request
 * runs (token, lease_time), marked committed by the write's own transaction, then its sealed answer.
 */
export const idempotencyKeysMigrations: Migration[] = [
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
	{
		version: 2,
		description: "idempotency key claims held by a token, committed with the write",
		statements: () => [
			"ALTER TABLE idempotency_keys ADD COLUMN token TEXT",
			"ALTER TABLE idempotency_keys ADD COLUMN lease_time BIGINT",
		],
	},
];

/** Marks a claim committed inside a write's transaction; a claim taken over by another request fails the write. */
export async function markCommitted(tx: SqlExecutor, keyId: string, token: string, keepUntil: number): Promise<void> {
	const marked = await tx.run(
		"UPDATE idempotency_keys SET state = 'committed', expires_time = $3 WHERE key_id = $1 AND token = $2 AND state IN ('running', 'committed')",
		[keyId, token, keepUntil],
	);
	if (marked !== 1) throw claimTakenOver();
}

export class SqlIdempotencyKeys implements IdempotencyKeys {
	constructor(readonly db: SqlDatabase) {}

	/**
	 * One statement claims a new key or an expired one (a lapsed claim never committed anything): two nodes cannot both
	 * claim.
	 */
	async claim(keyId: string, fingerprint: string, token: string, now: number, leaseEnds: number): Promise<KeyClaim> {
		const claimed = await this.db.get<{ key_id: string }>(
			`INSERT INTO idempotency_keys (key_id, fingerprint, state, answer, expires_time, token, lease_time) VALUES ($1, $2, 'running', NULL, $3, $4, $3)
			ON CONFLICT (key_id) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'running', answer = NULL, expires_time = excluded.expires_time, token = excluded.token, lease_time = excluded.lease_time
			WHERE idempotency_keys.expires_time <= $5
			RETURNING key_id`,
			[keyId, fingerprint, leaseEnds, token, now],
		);
		if (claimed) return { state: "claimed" };
		const row = await this.db.get<{
			fingerprint: string;
			state: string;
			answer: string | null;
			lease_time: number | null;
		}>("SELECT fingerprint, state, answer, lease_time FROM idempotency_keys WHERE key_id = $1", [keyId]);
		// Gone between the two statements (purged): the next attempt claims it.
		if (!row) return { state: "running", fingerprint };
		if (row.state === "done" && row.answer !== null)
			return { state: "done", fingerprint: row.fingerprint, answer: row.answer };
		if (row.state === "committed" && Number(row.lease_time) <= now)
			return { state: "lost", fingerprint: row.fingerprint };
		return { state: "running", fingerprint: row.fingerprint };
	}

	markCommitted(keyId: string, token: string, keepUntil: number): Promise<void> {
		return this.db.transaction(tx => markCommitted(tx, keyId, token, keepUntil));
	}

	answer(keyId: string, token: string, answer: string, keepUntil: number): Promise<number> {
		return this.db.run(
			"UPDATE idempotency_keys SET state = 'done', answer = $3, expires_time = $4 WHERE key_id = $1 AND token = $2 AND state IN ('running', 'committed')",
			[keyId, token, answer, keepUntil],
		);
	}

	async giveUp(keyId: string, token: string): Promise<void> {
		await this.db.transaction(async tx => {
			await tx.run("DELETE FROM idempotency_keys WHERE key_id = $1 AND token = $2 AND state = 'running'", [
				keyId,
				token,
			]);
			await tx.run(
				"UPDATE idempotency_keys SET lease_time = 0 WHERE key_id = $1 AND token = $2 AND state = 'committed'",
				[keyId, token],
			);
		});
	}

	removeExpired(now: number): Promise<number> {
		return this.db.run("DELETE FROM idempotency_keys WHERE expires_time <= $1", [now]);
	}
}
