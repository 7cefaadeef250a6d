import { MetricReporters, MetricRegistry, ServiceBroker } from "moleculer";
import { nodeMetricsText } from "./observability/node-metrics";
import { prometheusFormat } from "./observability/prometheus-format";
import {
	addFamilies,
	boundFamilies,
	HistogramFamily,
	HistogramSeries,
	sharedValueFamily,
	ValueFamily,
	ValueSeries,
} from "./observability/metric-series";

/**
 * Moleculer's metrics that describe the host (its name, users, addresses, MACs, command line): none of a scraper's
 * business.
 */
export const hostDetailMetrics = ["os.hostname", "os.user.*", "os.network.*", "process.arguments"];

/**
 * Moleculer's Prometheus reporter without a server of its own: the gateway and the probe server
 * answer GET /metrics with its text, so no process opens a port for metrics alone. Host details
 * are left out, and the text is valid Prometheus (see prometheusFormat).
 */
export class PrometheusText extends MetricReporters.Prometheus {
	/** Set by the base reporter's init, read by its labelsToStr (Moleculer's typings leave it out). */
	declare defaultLabels: Record<string, unknown> | undefined;

	constructor(opts: ConstructorParameters<typeof MetricReporters.Prometheus>[0] = {}) {
		super({ ...opts, excludes: [...hostDetailMetrics, ...[opts?.excludes ?? []].flat()] });
	}

	override init(registry: MetricRegistry): void {
		// The base reporter's init (registry, logger, prefix); the Prometheus one would also listen on a port.
		MetricReporters.Base.prototype.init.call(this, registry);
		const labels = this.opts.defaultLabels;
		this.defaultLabels = typeof labels === "function" ? labels.call(this, registry) : labels;
	}

	override generatePrometheusResponse(): string {
		const { store, broker } = this.registry;
		return prometheusFormat([...store.values(), ...boundFamilies(broker)], this);
	}

	override async stop(): Promise<void> {}
}

function reporterOf(broker: ServiceBroker): PrometheusText | undefined {
	// Undefined while metrics are off.
	const reporters: MetricReporters.Base[] = broker.metrics.reporter ?? [];
	return reporters.find((r): r is PrometheusText => r instanceof PrometheusText);
}

/**
 * The Prometheus text of a broker's metrics followed by prom-client's Node.js metrics (collected now:
 * prom-client collects asynchronously), or undefined when metrics are off.
 */
export async function currentPrometheusText(broker: ServiceBroker): Promise<string | undefined> {
	const reporter = reporterOf(broker);
	return reporter && `${reporter.generatePrometheusResponse()}\n${await nodeMetricsText()}`;
}

/** Per-operation metrics the gateway keeps: what callers asked for, how it ended, how long it took. */
export const operationMetrics = {
	requests: "plaza.operation.requests.total",
	duration: "plaza.operation.duration.seconds",
};

interface OperationSeries {
	requests: ValueSeries;
	duration: HistogramSeries;
}

/** Per broker: the families, and the series of each operation, surface and status, bound at their first call. */
const operationFamilies = new WeakMap<
	ServiceBroker,
	{ requests: ValueFamily; duration: HistogramFamily; series: Map<string, OperationSeries> }
>();

export function registerOperationMetrics(broker: ServiceBroker): void {
	if (!broker.isMetricsEnabled() || operationFamilies.has(broker)) return;
	const families = {
		requests: new ValueFamily(operationMetrics.requests, "counter", "Operations called, by HTTP status"),
		duration: new HistogramFamily(
			operationMetrics.duration,
			"Time to answer an operation, in seconds",
			"seconds",
			[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
		),
		series: new Map<string, OperationSeries>(),
	};
	operationFamilies.set(broker, families);
	addFamilies(broker, [families.requests, families.duration]);
}

/** Counts one operation call and its duration (seconds since `startedAt`, from process.hrtime.bigint()). */
export function recordOperation(
	broker: ServiceBroker,
	operation: string,
	surface: string,
	status: number,
	startedAt: bigint,
): void {
	const families = operationFamilies.get(broker);
	if (!families) return;
	const key = `${operation}|${surface}|${status}`;
	let series = families.series.get(key);
	if (!series) {
		const labels = { operation, surface, status };
		families.series.set(
			key,
			(series = { requests: families.requests.series(key, labels), duration: families.duration.series(key, labels) }),
		);
	}
	series.requests.value++;
	series.duration.observe(Number(process.hrtime.bigint() - startedAt) / 1e9);
}

/** The Server Events streams a gateway holds open now: Prometheus `plaza_event_streams_open`. */
export const eventStreamMetrics = { open: "plaza.event.streams.open" };

/** The gauge a gateway sets to its number of open event streams; undefined when metrics are off. */
export function openStreamsGauge(broker: ServiceBroker): ValueSeries | undefined {
	if (!broker.isMetricsEnabled()) return undefined;
	return sharedValueFamily(
		broker,
		eventStreamMetrics.open,
		"gauge",
		"Server Events streams open on this gateway",
	).series("", {});
}
