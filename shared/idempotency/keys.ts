import { PlazaError } from "../errors";
import { SqlDatabase } from "../persistence/sql/database";

/**
 * What the store says of a key asked for: claimed for this request, or held by a first one —
 * running (nothing of it committed yet, or not yet answered), answered, or lost (its write
 * committed, or may have on MongoDB, and its node stopped before the answer was kept).
 */
export type KeyClaim =
	| { state: "claimed" }
	| { state: "running" | "lost"; fingerprint: string }
	| { state: "done"; fingerprint: string; answer: string };

/**
 * A domain's idempotency keys, in the domain's own database. A claim holds a token; only its holder
 * may mark it committed, answer it or give it up, so a request whose lease lapsed cannot clobber the
 * one that took the key over.
 */
export interface IdempotencyKeys {
	/**
	 * The SQL database the claims are in: each write's own transaction there marks the claim committed (see keyedWrites).
	 * None on MongoDB: `markCommitted` runs before the write.
	 */
	readonly db?: SqlDatabase;
	claim(keyId: string, fingerprint: string, token: string, now: number, leaseEnds: number): Promise<KeyClaim>;
	markCommitted(keyId: string, token: string, keepUntil: number): Promise<void>;
	answer(keyId: string, token: string, answer: string, keepUntil: number): Promise<number>;
	/** The request failed on the server: a claim with nothing committed is freed, one with a commit is lost at once. */
	giveUp(keyId: string, token: string): Promise<void>;
	removeExpired(now: number): Promise<number>;
}

/**
 * A request whose lease lapsed meets its key taken over by a retry: its write is refused (rolled back), the retry's
 * goes on.
 */
export function claimTakenOver(): PlazaError {
	return new PlazaError(
		409,
		"IdempotencyKeyInUse",
		"Another request with this Idempotency-Key took it over; retry later with the same key",
	);
}
