import { collectDefaultMetrics, Registry } from "prom-client";

/** prom-client's own registry of the process's Node.js metrics, under their conventional names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, …). */
let registry: Registry | undefined;
let refreshing: Promise<string> | undefined;

function nodeRegistry(): Registry {
	if (!registry) {
		registry = new Registry();
		// One registry per process: every broker of the process (tests start several) shares it.
		collectDefaultMetrics({ register: registry });
	}
	return registry;
}

/** The Node.js metrics as they are now. */
export function nodeMetricsText(): Promise<string> {
	refreshing ??= nodeRegistry()
		.metrics()
		.finally(() => (refreshing = undefined));
	return refreshing;
}

