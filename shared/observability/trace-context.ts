import { IncomingHttpHeaders } from "node:http";

/** A W3C trace context (`traceparent: 00-<trace id>-<parent span id>-<flags>`). */
export interface TraceParent {
	traceId: string;
	spanId: string;
	flags: string;
}

const traceparentFormat = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The caller's trace context, or undefined when the header is missing or malformed (an all-zero id is invalid too). */
export function parseTraceparent(header: IncomingHttpHeaders["traceparent"]): TraceParent | undefined {
	if (typeof header !== "string") return undefined;
	const match = traceparentFormat.exec(header.trim());
	if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
	return { traceId: match[1], spanId: match[2], flags: match[3] };
}

/** The caller asked for its trace to be recorded (the flags' sampled bit). */
export const isSampled = (trace: TraceParent) => (parseInt(trace.flags, 16) & 1) === 1;

/**
 * A span id as W3C and Zipkin write it, from a Moleculer id (a UUID): its first 16 hex digits, as Moleculer's Zipkin
 * exporter takes them.
 */
export const spanIdOf = (id: string) => id.replace(/-/g, "").slice(0, 16).padEnd(16, "0");

/**
 * The header an answer carries: the caller's trace, with Plaza's span (the request's) as the parent of what follows.
 */
export function traceparentOf(trace: TraceParent, spanId: string): string {
	return `00-${trace.traceId}-${spanId}-${trace.flags}`;
}
