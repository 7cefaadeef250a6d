import { createHash } from "node:crypto";
import { Span, TracerExporters } from "moleculer";

/** A trace id as Zipkin and W3C write it: 32 lower-case hex digits. */
const w3cTraceId = /^[0-9a-f]{32}$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The trace id of a request id: a W3C trace id as it is (so a caller's trace and Plaza's are one),
 * Moleculer's own UUID without its dashes, and a caller's X-Request-ID token hashed, so that the
 * spans of one request still share an id a collector accepts.
 */
export function zipkinTraceId(requestId: string): string {
	if (w3cTraceId.test(requestId)) return requestId;
	if (uuid.test(requestId)) return requestId.replace(/-/g, "");
	return createHash("sha256").update(requestId).digest("hex").slice(0, 32);
}

/**
 * Moleculer's Zipkin exporter (API v2, which an OpenTelemetry collector's zipkin receiver takes)
 * with 128-bit trace ids (Moleculer cuts them to 64 bits, so a W3C trace would not join), and the
 * spans still queued sent when the broker stops.
 */
export class PlazaZipkinExporter extends TracerExporters.Zipkin {
	override makePayload(span: Span): Record<string, unknown> {
		return { ...super.makePayload(span), traceId: zipkinTraceId(String(span.traceID)) };
	}

	override flush(): void {
		this.send().catch(err => this.logger.warn("Sending spans failed:", err));
	}

	// eslint-disable-next-line @typescript-eslint/no-misused-promises -- Moleculer's Tracer awaits every exporter's stop() (Promise.all); only its typings say void
	override async stop(): Promise<void> {
		super.stop();
		await this.send();
	}

	/** Posts the queued spans; a collector that is down costs a warning, never a request. */
	private async send(): Promise<void> {
		if (this.queue.length === 0) return;
		const spans = this.generateTracingData();
		this.queue.length = 0;
		try {
			const res = await fetch(`${this.opts.baseURL}/api/v2/spans`, {
				method: "POST",
				body: JSON.stringify(spans),
				headers: this.opts.headers,
				signal: AbortSignal.timeout(5_000),
			});
			if (res.status >= 400)
				this.logger.warn(`The trace collector refused ${spans.length} spans: ${res.status} ${res.statusText}`);
		} catch (err) {
			this.logger.warn(`The trace collector could not be reached: ${(err as Error).message}`);
		}
	}
}
