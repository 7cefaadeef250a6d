import { BrokerOptions, Errors, Middleware } from "moleculer";
import { PlazaConfig } from "./config";
import { operationsMiddleware } from "./operations.middleware";
import { callLogMiddleware } from "./call-log.middleware";
import { PrometheusText } from "./metrics";

/** Failures that say a node is in trouble (timeouts, gone, overloaded), not that a request was wrong. */
const nodeTrouble = (err: unknown) => {
	const e = err as { code?: number; name?: string } | undefined;
	return !!e && e.name !== "PlazaError" && typeof e.code === "number" && e.code >= 500;
};

/**
 * The broker of a Plaza process: the same in one process or many, save for the transporter.
 * Fault tolerance: call timeouts; retries only where the caller asks (reads, see readCall; writes
 * never re-run); a circuit breaker per endpoint, so calls leave a failing node; a bulkhead per
 * action, so a slow service cannot take every slot; context tracking, so a stopping node first
 * finishes what it accepted. Operations: Prometheus metrics, optional tracing, structured logs.
 */
export function brokerOptions(config: PlazaConfig, extraMiddlewares: Middleware[]): BrokerOptions {
	const { cluster } = config;
	return {
		namespace: "plaza",
		nodeID: cluster.nodeId,
		transporter: config.transporter as BrokerOptions["transporter"],
		metadata: { readRetries: cluster.readRetries },
		logger:
			config.logLevel === false
				? false
				: { type: "Console", options: { level: config.logLevel, formatter: config.logFormat === "json" ? "jsonext" : "short", colors: config.logFormat !== "json" } },
		requestTimeout: cluster.requestTimeoutMs,
		heartbeatInterval: cluster.heartbeatIntervalSeconds,
		heartbeatTimeout: cluster.heartbeatTimeoutSeconds,
		retryPolicy: { enabled: true, retries: 0, delay: 100, maxDelay: 1000, factor: 2, check: err => (err as Errors.MoleculerRetryableError)?.retryable === true },
		circuitBreaker: { enabled: true, threshold: 0.5, minRequestCount: 10, windowTime: 10, halfOpenTime: 5_000, check: nodeTrouble },
		bulkhead: { enabled: true, concurrency: cluster.bulkheadConcurrency, maxQueueSize: cluster.bulkheadQueue },
		tracking: { enabled: true, shutdownTimeout: 10_000 },
		// A stopping node first tells the others to stop sending it calls, then waits this long before it stops taking them.
		registry: { stopDelay: config.transporter ? 1000 : 0 },
		// Moleculer takes a reporter instance, though its typings list only names.
		metrics: { enabled: true, reporter: [new PrometheusText()] } as unknown as BrokerOptions["metrics"],
		tracing: cluster.tracing ? { enabled: true, exporter: [{ type: "Console" }] } : { enabled: false },
		// How often a service waiting for its dependencies looks again (Moleculer's default is 1 s).
		dependencyInterval: 50,
		middlewares: [operationsMiddleware, callLogMiddleware(config.logFormat === "json" ? "info" : "debug"), ...extraMiddlewares],
	};
}
