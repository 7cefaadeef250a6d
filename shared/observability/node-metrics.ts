import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * prom-client's registry of the process's Node.js metrics, under their conventional names
 * (process_cpu_seconds_total, nodejs_eventloop_lag_seconds, …). Made at the first scrape, so a node
 * nobody scrapes runs no event-loop monitor or GC observer; one per process, shared by every broker
 * of it (tests start several).
 */
let registry: Registry | undefined;
let refreshing: Promise<string> | undefined;

/**
 * How often the event-loop delay is sampled for the nodejs_eventloop_lag_p50…p99 gauges: prom-client's 10 ms keeps
 * an idle process awake; 100 ms still samples often between scrapes. nodejs_eventloop_lag_seconds is taken at scrape.
 */
const eventLoopSamplingMs = 100;

function nodeRegistry(): Registry {
	if (!registry) {
		registry = new Registry();
		collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: eventLoopSamplingMs });
	}
	return registry;
}

/**
 * The Node.js metrics as they are now (prom-client collects asynchronously; concurrent scrapes share one collection).
 */
export function nodeMetricsText(): Promise<string> {
	refreshing ??= nodeRegistry()
		.metrics()
		.finally(() => (refreshing = undefined));
	return refreshing;
}
