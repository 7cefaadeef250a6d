import { createHash } from "node:crypto";
import { Context } from "moleculer";
import { AuthConfig } from "../../shared/config";
import {
	AddAttempts,
	AttemptTotals,
	bucketMsOf,
	retryAfterSeconds,
	SlidingLimit,
	WindowCount,
	windowStart,
} from "../../shared/attempts";
import { failures } from "../../shared/errors";

/** A sign-in as the limits see it: the name it was made with, the account behind it if any, and where from. */
export interface SignInAttempt {
	login: string;
	accountId?: string;
	address?: string;
}

/** An audit line: its details first (JSON log keys), then the message (the users service writes it as a warning). */
type Audit = (details: Record<string, unknown>, message: string) => void;

/** Who tried, as every audit line of an attempt names them. */
type AuditedAttempt = { account: string; address?: string; requestID: string | null };

interface AttemptKeys {
	pair: string;
	account: string;
	trusted: string;
	address?: string;
}

/**
 * Failed sign-ins, in the counters every users node shares (the limits service), slowing a guesser without locking
 * out the owner: per account and address (then 429 for that pair), per address (credential stuffing), and per account
 * (once spent, only addresses trusted for it, signed in from recently, may try). An attempt is counted before its
 * password is checked, so that concurrent attempts cannot all pass, and taken back when refused or successful; a
 * success also clears its pair and trusts its address.
 */
export class SignInLimits {
	private readonly pairLimit: SlidingLimit;

	private readonly addressLimit: SlidingLimit;

	private readonly accountLimit: SlidingLimit;

	/** Every failure counter's bucket, and how long its buckets are kept. */
	private readonly bucketMs: number;

	private readonly keepMs: number;

	private readonly trustMs: number;

	private readonly trustBucketMs: number;

	constructor(
		config: AuthConfig,
		private readonly audit: Audit,
	) {
		const failureWindowMs = config.failureWindowSeconds * 1000;
		const accountWindowMs = config.accountFailureWindowSeconds * 1000;
		this.pairLimit = { max: config.maxFailuresPerAccount, windowMs: failureWindowMs };
		this.addressLimit = { max: config.maxFailuresPerAddress, windowMs: failureWindowMs };
		this.accountLimit = { max: config.accountFailureBudget, windowMs: accountWindowMs };
		this.bucketMs = bucketMsOf(Math.min(failureWindowMs, accountWindowMs));
		this.keepMs = Math.max(failureWindowMs, accountWindowMs);
		this.trustMs = config.trustedAddressSeconds * 1000;
		this.trustBucketMs = bucketMsOf(this.trustMs);
	}

	/**
	 * Runs `proves` (the password check) unless a limit refuses the attempt (429 with the seconds to
	 * wait); whether it proved who the caller is, counted either way.
	 */
	async attempt(ctx: Context, attempt: SignInAttempt, proves: () => Promise<boolean>): Promise<boolean> {
		const keys = keysOf(attempt);
		const now = Date.now();
		const window = windowStart(now, this.bucketMs);
		const who: AuditedAttempt = { account: attempt.login, address: attempt.address, requestID: ctx.requestID ?? null };
		const seen = await ctx.call<WindowCount[], { keys: string[] }>("limits.windows", {
			keys: Object.values(keys).filter((k): k is string => !!k),
		});
		const trusted = seen.some(w => w.key === keys.trusted);
		this.refuseIfSpent(who, keys, seen, trusted, now);
		const counts = Object.fromEntries(failureKeys(keys).map(key => [key, 1]));
		const totals = await ctx.call<AttemptTotals, AddAttempts>("limits.add", {
			window,
			windowMs: this.bucketMs,
			keepMs: this.keepMs,
			counts,
		});
		// Attempts made at the same time were each counted once: the totals say which of them come past a limit.
		// One refused here tried no password, so it spends nothing: its count is taken back (else a burst
		// refused for its address would still spend the account's budget, and lock the owner out of new addresses).
		try {
			this.refuseIfSpent(who, keys, before(seen, window, this.bucketMs, totals), trusted, now);
		} catch (refused) {
			const undone = Object.fromEntries(Object.keys(counts).map(key => [key, -1]));
			await ctx.call<AttemptTotals, AddAttempts>("limits.add", {
				window,
				windowMs: this.bucketMs,
				keepMs: this.keepMs,
				counts: undone,
			});
			throw refused;
		}

		if (!(await proves())) {
			this.audit({ event: "sign-in-failed", ...who }, "audit: sign-in failed");
			return false;
		}
		// The pair's earlier failures are forgotten; this attempt's own count is taken back everywhere.
		const clearPair = seen.some(w => w.key === keys.pair);
		const undone = Object.fromEntries(
			failureKeys(keys)
				.filter(key => !(clearPair && key === keys.pair))
				.map(key => [key, -1]),
		);
		const trustWindow = windowStart(now, this.trustBucketMs);
		const trustedNow = seen.some(w => w.key === keys.trusted && w.window === trustWindow);
		await Promise.all([
			clearPair ? ctx.call<number, { keys: string[] }>("limits.clear", { keys: [keys.pair] }) : undefined,
			ctx.call<AttemptTotals, AddAttempts>("limits.add", {
				window,
				windowMs: this.bucketMs,
				keepMs: this.keepMs,
				counts: undone,
			}),
			trustedNow || !attempt.address
				? undefined
				: ctx.call<AttemptTotals, AddAttempts>("limits.add", {
						window: trustWindow,
						windowMs: this.trustBucketMs,
						keepMs: this.trustMs,
						counts: { [keys.trusted]: 1 },
					}),
		]);
		return true;
	}

	/** 429 when the pair's, the address's, or (from an address not trusted for it) the account's failures are spent. */
	private refuseIfSpent(
		who: AuditedAttempt,
		keys: AttemptKeys,
		windows: WindowCount[],
		trusted: boolean,
		now: number,
	): void {
		const of = (key: string | undefined) => windows.filter(w => w.key === key);
		const waits: Array<[string, number]> = [
			["account and address", retryAfterSeconds(this.pairLimit, of(keys.pair), now)],
			["address", keys.address ? retryAfterSeconds(this.addressLimit, of(keys.address), now) : 0],
			[
				"account, from an address not trusted for it",
				trusted ? 0 : retryAfterSeconds(this.accountLimit, of(keys.account), now),
			],
		];
		const [limit, wait] = waits.reduce((longest, next) => (next[1] > longest[1] ? next : longest));
		if (wait === 0) return;
		this.audit(
			{ event: "sign-in-refused", ...who, limit, retryAfterSeconds: wait },
			"audit: sign-in refused, too many failed attempts",
		);
		throw failures.tooManyRequests(wait, "Too many failed sign-in attempts; try again later");
	}
}

/** The counters of an attempt: an account is its id, or (when there is none) a hash of the name tried, however long. */
function keysOf({ login, accountId, address }: SignInAttempt): AttemptKeys {
	const account = accountId ?? `name:${createHash("sha256").update(login.toLowerCase()).digest("hex")}`;
	const from = address ?? "unknown";
	return {
		pair: `signin:pair:${account}@${from}`,
		account: `signin:account:${account}`,
		trusted: `signin:trusted:${account}@${from}`,
		address: address && `signin:address:${address}`,
	};
}

function failureKeys(keys: AttemptKeys): string[] {
	return [keys.pair, keys.account, ...(keys.address ? [keys.address] : [])];
}

/** The windows as they stood before this attempt: its own window's count is the new total, less itself. */
function before(seen: WindowCount[], window: number, windowMs: number, totals: AttemptTotals): WindowCount[] {
	const others = seen.filter(w => !(w.window === window && w.key in totals));
	return [...others, ...Object.entries(totals).map(([key, total]) => ({ key, window, windowMs, count: total - 1 }))];
}
