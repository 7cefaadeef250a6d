import { Context } from "moleculer";

/**
 * A call that only reads: when the node answering it fails (timeout, gone, circuit open), it is
 * tried again on another, READ_RETRIES times (kept in the broker's metadata). Writes go through
 * plain ctx.call and are never re-run.
 */
export function readCall<T, P>(ctx: Context, action: string, params: P): Promise<T> {
	return ctx.call<T, P>(action, params, { retries: readRetriesOf(ctx) });
}

export function readRetriesOf(ctx: Context): number {
	const metadata = ctx.broker.metadata as { readRetries?: number } | undefined;
	return metadata?.readRetries ?? 0;
}

/**
 * How long the caller still waits for this call (Moleculer's distributed timeout: the time it was
 * given, less what it has run here), or undefined when it has no timeout.
 */
export function timeLeftMs(ctx: Context): number | undefined {
	const timeout = ctx.options?.timeout;
	const started = (ctx as { startHrTime?: [number, number] | null }).startHrTime;
	if (!timeout || timeout <= 0 || !started) return undefined;
	const [seconds, nanos] = process.hrtime(started);
	return timeout - (seconds * 1e3 + nanos / 1e6);
}
