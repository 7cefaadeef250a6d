import { ServerResponse } from "node:http";
import { Context } from "moleculer";
import { isSampled, spanIdOf, TraceParent, traceparentOf } from "./trace-context";

/** What the span of a request reads of it when it ends. */
interface TracedRequest {
	method?: string;
	$rawUrl?: string;
	url?: string;
	$operation?: { name: string };
}

/**
 * The gateway's span of one HTTP request, child of the caller's span when it sent a `traceparent`:
 * every action the request calls is a child of it, and the answer's `traceparent` names it. Its
 * tags are the method, the path (never the query, which may carry credentials), the operation and
 * the status. Without tracing no span is made, but a caller's trace context is still answered.
 */
export function startRequestSpan(
	ctx: Context,
	req: TracedRequest,
	res: ServerResponse,
	trace: TraceParent | undefined,
): void {
	if (trace) res.setHeader("traceparent", traceparentOf(trace, spanIdOf(ctx.id)));
	if (!ctx.broker.isTracingEnabled()) return;
	const span = ctx.startSpan(`HTTP ${req.method ?? "GET"}`, {
		id: ctx.id,
		type: "http",
		traceID: ctx.requestID ?? ctx.id,
		parentID: trace?.spanId ?? null,
		service: ctx.service ?? undefined,
		sampled: trace ? isSampled(trace) : undefined,
		tags: { http: { method: req.method } },
	});
	ctx.tracing = span.sampled;
	res.once("close", () => {
		span.addTags({
			http: { path: (req.$rawUrl ?? req.url ?? "").split("?")[0], status_code: res.statusCode },
			operation: req.$operation?.name ?? null,
		});
		ctx.finishSpan(span);
	});
}
