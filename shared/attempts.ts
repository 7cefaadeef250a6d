/**
 * Attempts counted per key in fixed windows (window start = floor(now / windowMs) × windowMs), in
 * the counters every node of a deployment shares (the limits service). Requests and failed sign-ins
 * are counted this way; what a limit refuses is decided by the one who counts.
 */

/** limits.add: adds `counts` to each key's counter of one window; answers every key's new total. */
export interface AddAttempts {
	/** Start of the window, epoch ms (a multiple of windowMs). */
	window: number;
	windowMs: number;
	/** How long the counts are kept after the window ends (a sliding limit looks back that far); 0 by default. */
	keepMs?: number;
	counts: Record<string, number>;
}

export type AttemptTotals = Record<string, number>;

/** A key's count in one window, as limits.windows answers it. */
export interface WindowCount {
	key: string;
	window: number;
	windowMs: number;
	count: number;
}

export const windowStart = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

/**
 * A limit over the last `windowMs` (sliding), counted in buckets of a fifteenth of it: at most a
 * fifteenth of the window's failures are counted a little longer than the window.
 */
export interface SlidingLimit {
	max: number;
	windowMs: number;
}

export const bucketMsOf = (windowMs: number) => Math.max(1000, Math.ceil(windowMs / 15));

/**
 * Seconds until fewer than `limit.max` attempts lie in the sliding window (the oldest buckets
 * leaving it first), or 0 when there are fewer already (or the limit is 0, switched off).
 */
export function retryAfterSeconds(limit: SlidingLimit, buckets: readonly WindowCount[], now = Date.now()): number {
	if (limit.max <= 0) return 0; // 0 switches a limit off
	const inWindow = buckets
		.filter(b => b.window + b.windowMs > now - limit.windowMs)
		.sort((a, b) => a.window - b.window);
	let total = inWindow.reduce((sum, b) => sum + b.count, 0);
	if (total < limit.max) return 0;
	for (const bucket of inWindow) {
		total -= bucket.count;
		if (total < limit.max)
			return Math.max(1, Math.ceil((bucket.window + bucket.windowMs + limit.windowMs - now) / 1000));
	}
	return 1;
}
