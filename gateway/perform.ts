import { IncomingMessage } from "node:http";
import { Context } from "moleculer";
import { Operation } from "../shared/catalogue";
import { readRetriesOf } from "../shared/calls";
import { recordOperation } from "../shared/metrics";

/** What the gateway remembers of the operation a request runs, for its metrics and its access log. */
export interface PerformedRequest extends IncomingMessage {
	$operation?: { name: string; surface: string; startedAt: bigint };
}

/**
 * Runs an operation's action for a request on any surface. A read may be tried again on another
 * node when one fails; a write never is (it may have happened).
 */
export function performOperation(ctx: Context, req: PerformedRequest, op: Operation, surface: string, params: Record<string, unknown>): Promise<unknown> {
	req.$operation = { name: op.name, surface, startedAt: process.hrtime.bigint() };
	return ctx.call(op.action, params, { retries: op.reads ? readRetriesOf(ctx) : 0 });
}

/** Counts the operation a request ran (if it got that far) with the status it ended with. */
export function recordPerformed(ctx: Context | undefined, req: PerformedRequest, status: number): void {
	if (ctx && req.$operation) recordOperation(ctx.broker, req.$operation.name, req.$operation.surface, status, req.$operation.startedAt);
}
