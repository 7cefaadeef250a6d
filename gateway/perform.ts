import { IncomingMessage } from "node:http";
import { Context } from "moleculer";
import { Operation } from "../shared/catalogue";
import { readRetriesOf } from "../shared/calls";
import { recordOperation } from "../shared/metrics";
import { failures, PlazaError } from "../shared/errors";

/** What the gateway remembers of the operation a request runs, for its metrics and its access log. */
export interface PerformedRequest extends IncomingMessage {
	$operation?: { name: string; surface: string; startedAt: bigint };
	/** Writes this request has run so far: the n-th of a batch gets the key `<key>#n`. */
	$writes?: number;
}

/** Failures after which a write may or may not have happened: the call was sent, and no answer came back. */
const outcomeUnknown = new Set(["RequestTimeoutError", "RequestRejectedError"]);

/**
 * Runs an operation's action for a request on any surface. A read may be tried again on another
 * node when one fails; a write never is (it may have happened), and when it was sent and no answer
 * came back it fails as 504 OutcomeUnknown, not 503 (which clients take for "not done, retry").
 * A write's Idempotency-Key goes with it to the node that runs it (see runOnce).
 */
export async function performOperation(
	ctx: Context,
	req: PerformedRequest,
	op: Operation,
	surface: string,
	params: Record<string, unknown>,
): Promise<unknown> {
	req.$operation = { name: op.name, surface, startedAt: process.hrtime.bigint() };
	if (op.reads) return ctx.call(op.action, params, { retries: readRetriesOf(ctx) });
	const key = idempotencyKeyOf(req);
	const writes = req.$writes ?? 0;
	req.$writes = writes + 1;
	const meta = key === undefined ? undefined : { idempotencyKey: writes === 0 ? key : `${key}#${writes}` };
	try {
		return await ctx.call(op.action, params, { retries: 0, meta });
	} catch (err) {
		const name = (err as { name?: string } | undefined)?.name;
		if (name && outcomeUnknown.has(name)) throw unknownOutcome(key !== undefined);
		throw err;
	}
}

/** Counts the operation a request ran (if it got that far) with the status it ended with. */
export function recordPerformed(ctx: Context | undefined, req: PerformedRequest, status: number): void {
	if (ctx && req.$operation)
		recordOperation(ctx.broker, req.$operation.name, req.$operation.surface, status, req.$operation.startedAt);
}

/** The Idempotency-Key header (a structured-field string, quoted, or the bare token most clients send). */
function idempotencyKeyOf(req: IncomingMessage): string | undefined {
	const header = req.headers["idempotency-key"];
	if (header === undefined) return undefined;
	const value = (Array.isArray(header) ? header.join(",") : header).trim().replace(/^"(.*)"$/, "$1");
	if (!/^[\x21-\x7e]{1,255}$/.test(value))
		throw failures.field(
			"Idempotency-Key",
			"InvalidValue",
			"Idempotency-Key must be 1 to 255 visible ASCII characters (e.g. a UUID)",
		);
	return value;
}

function unknownOutcome(keyed: boolean): PlazaError {
	const retry = keyed
		? "retry with the same Idempotency-Key to get its answer"
		: "read before retrying, or send writes with an Idempotency-Key";
	return new PlazaError(
		504,
		"OutcomeUnknown",
		`No answer came in time; the change may or may not have been made: ${retry}`,
	);
}
