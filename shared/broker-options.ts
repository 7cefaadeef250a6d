import { randomBytes } from "node:crypto";
import { BrokerOptions, Errors, Middleware, ServiceBroker } from "moleculer";
import { PlazaConfig } from "./config";
import { operationsMiddleware } from "./operations.middleware";
import { callLogMiddleware } from "./call-log.middleware";
import { plazaLogger } from "./plaza-logger";
import { PrometheusText } from "./metrics";
import { tracingOptions } from "./observability/tracing";
import { moleculerMetricsMiddleware } from "./observability/moleculer-metrics.middleware";
import { sealedTransit } from "./bus/sealed-transit";
import { internalCallers } from "./bus/internal-callers";
import { PlazaNats } from "./bus/plaza-nats";
import { lostNodes } from "./bus/lost-nodes";
import { metricsReportingTo } from "./moleculer-internals";

/** Failures that say a node is in trouble (timeouts, gone, overloaded), not that a request was wrong. */
const nodeTrouble = (err: unknown) => {
	const e = err as { code?: number; name?: string } | undefined;
	return !!e && e.name !== "PlazaError" && typeof e.code === "number" && e.code >= 500;
};

/**
 * The caller picks the node (Moleculer's balancer), so that each call is sealed for, and opens only at, the node it is
 * sent to: a queue group could replay it to another node (a post made twice). Over NATS a lost node is found within a
 * second (see lostNodes). The circuit breaker moves calls off a node alive but failing; it is off in one process,
 * where it would take out an action's only endpoint.
 */
function transport(
	transporter: string | undefined,
): Pick<BrokerOptions, "transporter" | "circuitBreaker"> & { watch: Middleware[] } {
	const nats = transporter && /^nats:\/\//i.test(transporter) ? new PlazaNats(transporter) : undefined;
	return {
		transporter: nats ?? (transporter as BrokerOptions["transporter"]),
		circuitBreaker: {
			enabled: !!transporter,
			threshold: 0.5,
			minRequestCount: 10,
			windowTime: 10,
			halfOpenTime: 5_000,
			check: nodeTrouble,
		},
		watch: nats ? [lostNodes(nats)] : [],
	};
}

/**
 * A node ID for a process given none: Moleculer's own default names the host, which /metrics and /live would then show.
 */
const unnamedNodeId = () => `plaza-${process.pid}-${randomBytes(3).toString("hex")}`;

/**
 * The broker of a Plaza process, the same in one process or many save for the transporter: call timeouts, retries for
 * reads only (see readCall), lost and failing nodes left out (see transport), a bulkhead per action, and context
 * tracking, so that a stopping node first finishes what it accepted; metrics, tracing, logs. The bus is a trust
 * boundary: every packet sealed with CLUSTER_SECRET, internal actions only for the services they serve.
 */
export function brokerOptions(config: PlazaConfig, extraMiddlewares: Middleware[]): BrokerOptions {
	const { cluster } = config;
	if (config.transporter && !cluster.secret)
		throw new Error("CLUSTER_SECRET must be set when TRANSPORTER is (every process of the deployment shares it)");
	// Every packet sealed, each call for its node (docs/architecture.md, The sealed bus).
	const bus = config.transporter && cluster.secret ? [sealedTransit(cluster.secret)] : [];
	const { watch, ...transported } = transport(config.transporter);
	return {
		namespace: "plaza",
		nodeID: cluster.nodeId ?? unnamedNodeId(),
		metadata: { readRetries: cluster.readRetries },
		logger: plazaLogger(config.logLevel, config.logFormat),
		requestTimeout: cluster.requestTimeoutMs,
		heartbeatInterval: cluster.heartbeatIntervalSeconds,
		heartbeatTimeout: cluster.heartbeatTimeoutSeconds,
		retryPolicy: {
			enabled: true,
			retries: 0,
			delay: 100,
			maxDelay: 1000,
			factor: 2,
			check: err => (err as Errors.MoleculerRetryableError)?.retryable === true,
		},
		...transported,
		bulkhead: { enabled: true, concurrency: cluster.bulkheadConcurrency, maxQueueSize: cluster.bulkheadQueue },
		tracking: { enabled: true, shutdownTimeout: 10_000 },
		// A stopping node first tells the others to stop sending it calls, then waits this long before it stops taking
		// them.
		registry: { stopDelay: config.transporter ? 1000 : 0 },
		// A reporter instance (see metricsReportingTo); process and OS measures even when NODE_ENV is "test", where
		// Moleculer drops them.
		metrics: metricsReportingTo([new PrometheusText()], { enabled: true, collectProcessMetrics: true }),
		// Off unless TRACING or TRACING_EXPORTER asks; spans never carry params, meta or answers (see tracingOptions).
		tracing: tracingOptions(cluster),
		// How often a service waiting for its dependencies looks again (Moleculer's default is 1 s).
		dependencyInterval: 50,
		// Moleculer's internal middlewares in its own order, save its per-call metrics: moleculerMetricsMiddleware keeps
		// the same ones with series bound once.
		internalMiddlewares: false,
		middlewares: [
			...bus,
			...watch,
			internalCallers(),
			operationsMiddleware,
			// A node of several writes its own line per call (its request id joins it to the gateway's); in one process the
			// gateway's line says it all.
			callLogMiddleware(config.logFormat === "json" || config.transporter ? "info" : "debug"),
			...extraMiddlewares,
			...ServiceBroker.INTERNAL_MIDDLEWARES.map(name => (name === "Metrics" ? moleculerMetricsMiddleware() : name)),
		],
	};
}
