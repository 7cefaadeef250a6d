/**
 * Counts failures per key over a sliding window: the sign-in limiter (per account and per client
 * address). Memory only: each users node keeps its own counts, and a restart forgets them.
 */
export class FailureWindow {
	private readonly failures = new Map<string, number[]>();

	constructor(
		private readonly limit: number,
		private readonly windowMs: number,
	) {}

	/** Seconds until `key` may try again, or 0 when it is not locked out. */
	retryAfter(key: string, now = Date.now()): number {
		const recent = this.recent(key, now);
		if (recent.length < this.limit) return 0;
		return Math.max(1, Math.ceil((recent[recent.length - this.limit] + this.windowMs - now) / 1000));
	}

	fail(key: string, now = Date.now()): void {
		if (this.failures.size > 10_000) for (const k of [...this.failures.keys()]) this.recent(k, now);
		this.failures.set(key, [...this.recent(key, now), now]);
	}

	forget(key: string): void {
		this.failures.delete(key);
	}

	private recent(key: string, now: number): number[] {
		const times = (this.failures.get(key) ?? []).filter(t => t > now - this.windowMs);
		if (times.length) this.failures.set(key, times);
		else this.failures.delete(key);
		return times;
	}
}
