/** What the formatter needs of a Moleculer metric's snapshot item. */
interface SnapshotItem {
	labels: Record<string, unknown>;
	value?: unknown;
	count?: number;
	sum?: number;
	buckets?: Record<string, number>;
	quantiles?: Record<string, number | null>;
}

export interface MoleculerMetric {
	name: string;
	type: string;
	description?: string;
	unit?: string;
	snapshot(): SnapshotItem[];
}

/** How the reporter names metrics and writes labels (its prefix, its default labels). */
export interface MetricNaming {
	matchMetricName(name: string): boolean;
	formatMetricName(name: string): string;
	labelsToStr(labels: Record<string, unknown>, extra?: Record<string, unknown>): string;
}

const number = (value: unknown) =>
	// eslint-disable-next-line @typescript-eslint/no-base-to-string -- a metric's value: a number, or whatever scalar a reporter left there
	typeof value === "number" && !Number.isNaN(value) ? String(value) : value == null ? "NaN" : String(value);

/**
 * Moleculer's metrics as valid Prometheus text. Moleculer's own reporter writes a histogram's
 * buckets in object-key order (1, 5, 10 before 0.005) and mixes summary lines (quantiles, _min,
 * _mean, _variance, …) and `_rate` lines into it; here a histogram has its buckets in `le` order,
 * +Inf, _sum and _count; one with quantiles only is a summary; rates are left to PromQL's rate().
 */
export function prometheusFormat(metrics: Iterable<MoleculerMetric>, naming: MetricNaming): string {
	const content: string[] = [];
	for (const metric of metrics) {
		// Datetime metrics would give a series per second.
		if (!naming.matchMetricName(metric.name) || metric.name.startsWith("os.datetime")) continue;
		const items = metric.snapshot();
		if (items.length === 0) continue;
		const name = naming.formatMetricName(metric.name).replace(/[.-]/g, "_");
		const help = metric.description ?? metric.name + (metric.unit ? ` (${metric.unit})` : "");
		const withBuckets = metric.type === "histogram" && items.some(item => item.buckets);
		const type =
			metric.type === "info"
				? "gauge"
				: metric.type !== "histogram"
					? metric.type
					: withBuckets
						? "histogram"
						: "summary";
		content.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} ${type}`);
		for (const item of items) content.push(...seriesOf(name, type, metric, item, naming));
		content.push("");
	}
	return content.join("\n");
}

function seriesOf(
	name: string,
	type: string,
	metric: MoleculerMetric,
	item: SnapshotItem,
	naming: MetricNaming,
): string[] {
	const labels = (extra?: Record<string, unknown>) => naming.labelsToStr(item.labels, extra);
	if (metric.type === "info") return [`${name}${labels({ value: item.value })} 1`];
	if (type === "counter" || type === "gauge") return [`${name}${labels()} ${number(item.value)}`];
	const lines: string[] = [];
	if (type === "histogram") {
		const bounds = Object.keys(item.buckets ?? {}).sort((a, b) => Number(a) - Number(b));
		for (const le of bounds) lines.push(`${name}_bucket${labels({ le })} ${number(item.buckets?.[le])}`);
		lines.push(`${name}_bucket${labels({ le: "+Inf" })} ${number(item.count)}`);
	} else {
		const quantiles = Object.keys(item.quantiles ?? {}).sort((a, b) => Number(a) - Number(b));
		for (const quantile of quantiles)
			lines.push(`${name}${labels({ quantile })} ${number(item.quantiles?.[quantile])}`);
	}
	lines.push(`${name}_sum${labels()} ${number(item.sum)}`, `${name}_count${labels()} ${number(item.count)}`);
	return lines;
}
