import { randomBytes } from "node:crypto";
import { IncomingHttpHeaders, ServerResponse } from "node:http";

/** A W3C trace context (`traceparent: 00-<trace id>-<parent span id>-<flags>`). */
export interface TraceParent {
	traceId: string;
	spanId: string;
	flags: string;
}

const traceparentFormat = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The caller's trace context, or undefined when the header is missing or malformed (an all-zero id is invalid too). */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
	if (typeof header !== "string") return undefined;
	const match = traceparentFormat.exec(header.trim());
	if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
	return { traceId: match[1], spanId: match[2], flags: match[3] };
}

/** The header an answer carries: the caller's trace, with Plaza's own span as the parent of what follows. */
export function traceparentOf(trace: TraceParent, spanId = newSpanId()): string {
	return `00-${trace.traceId}-${spanId}-${trace.flags}`;
}

export function newSpanId(): string {
	return randomBytes(8).toString("hex");
}

/**
 * The trace a request belongs to, from its `traceparent` header: the answer carries the header back
 * with Plaza's span id, and the trace id is returned for the request's id. Undefined (no header
 * written) when the request has no valid one.
 */
export function continueTrace(headers: IncomingHttpHeaders, res: ServerResponse): string | undefined {
	const trace = parseTraceparent(headers.traceparent);
	if (!trace) return undefined;
	res.setHeader("traceparent", traceparentOf(trace));
	return trace.traceId;
}
