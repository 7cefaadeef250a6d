import { SqlDatabase } from "../../shared/persistence/sql/database";
import { KeyClaim } from "../../shared/idempotency";

/** Idempotency keys: claimed once, answered once, forgotten when they expire. */
export class IdempotencyRepository {
	constructor(private readonly db: SqlDatabase) {}

	/**
	 * Claims the key for a first request (a new row, or one whose time is over), else tells what the
	 * row holds: still running, or the answer sealed for it. One statement: two nodes cannot both claim.
	 */
	async claim(keyId: string, fingerprint: string, now: number, leaseEnds: number): Promise<KeyClaim> {
		const claimed = await this.db.get<{ key_id: string }>(
			`INSERT INTO idempotency_keys (key_id, fingerprint, state, answer, expires_time) VALUES ($1, $2, 'running', NULL, $3)
			ON CONFLICT (key_id) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'running', answer = NULL, expires_time = excluded.expires_time
			WHERE idempotency_keys.expires_time <= $4
			RETURNING key_id`,
			[keyId, fingerprint, leaseEnds, now],
		);
		if (claimed) return { state: "claimed" };
		const row = await this.db.get<{ fingerprint: string; state: string; answer: string | null }>("SELECT fingerprint, state, answer FROM idempotency_keys WHERE key_id = $1", [keyId]);
		// Gone between the two statements (purged): the next attempt claims it.
		if (!row) return { state: "running", fingerprint };
		if (row.state === "done" && row.answer !== null) return { state: "done", fingerprint: row.fingerprint, answer: row.answer };
		return { state: "running", fingerprint: row.fingerprint };
	}

	/** Keeps the first request's sealed answer until `expiresTime`. */
	async answer(keyId: string, answer: string, expiresTime: number): Promise<number> {
		return this.db.run("UPDATE idempotency_keys SET state = 'done', answer = $2, expires_time = $3 WHERE key_id = $1 AND state = 'running'", [keyId, answer, expiresTime]);
	}

	/** Gives a claim up (the request failed in a way a retry should run again). */
	async release(keyId: string): Promise<number> {
		return this.db.run("DELETE FROM idempotency_keys WHERE key_id = $1 AND state = 'running'", [keyId]);
	}

	/** Deletes the rows expired by `now`: how many. */
	async removeExpired(now: number): Promise<number> {
		return this.db.run("DELETE FROM idempotency_keys WHERE expires_time <= $1", [now]);
	}
}
