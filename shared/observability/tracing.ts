import { TracerExporters, TracerOptions } from "moleculer";
import { ClusterConfig } from "../config";
import { PlazaZipkinExporter } from "./zipkin-exporter";

/** Moleculer adds this to a Zipkin base URL; an operator may give the whole URL, as OpenTelemetry's own settings do. */
const zipkinSpansPath = /\/api\/v2\/spans\/?$/;

/**
 * The broker's tracing: off unless TRACING=true (spans printed) or TRACING_EXPORTER names a
 * collector. Spans name actions, never their params, meta (the caller), answers (session ids) or
 * an error's data (it may echo a field): passwords stay out of traces.
 */
export function tracingOptions(cluster: ClusterConfig): TracerOptions {
	// Moleculer takes exporter instances too, though its typings list only names and option records.
	const exporter: Array<{ type: "Console" } | TracerExporters.Base> = [];
	if (cluster.tracing) exporter.push({ type: "Console" });
	if (cluster.traceExport)
		exporter.push(new PlazaZipkinExporter({ baseURL: cluster.traceExport.endpoint.replace(zipkinSpansPath, "") }));
	if (exporter.length === 0) return { enabled: false };
	return {
		enabled: true,
		exporter: exporter as TracerOptions["exporter"],
		errorFields: ["name", "message", "code", "type"],
		tags: { action: { params: false, meta: false, response: false }, event: { params: false, meta: false } },
	};
}
