import { MoleculerMetric } from "./prometheus-format";

type Labels = Record<string, unknown>;

/**
 * A metric family whose series are bound once: a caller keeps its label set's series and counts into plain numbers,
 * without the label hashing, bucket-key formatting and change events Moleculer's registry does per observation.
 * Rendered by prometheusFormat like Moleculer's own metrics.
 */
abstract class Family<S extends { labels: Labels }> implements MoleculerMetric {
	private readonly byKey = new Map<string, S>();
	constructor(
		readonly name: string,
		readonly type: string,
		readonly description: string,
		readonly unit?: string,
	) {}

	/**
	 * The series of `key` (a caller's own name for its label set), made with `labels` the first time (a function: made
	 * only then).
	 */
	series(key: string, labels: Labels | (() => Labels)): S {
		let series = this.byKey.get(key);
		if (!series) this.byKey.set(key, (series = this.create(typeof labels === "function" ? labels() : labels)));
		return series;
	}

	protected abstract create(labels: Labels): S;
	protected abstract item(series: S): ReturnType<MoleculerMetric["snapshot"]>[number];

	snapshot() {
		return [...this.byKey.values()].map(series => this.item(series));
	}
}

export interface ValueSeries {
	labels: Labels;
	value: number;
}

/** A counter or a gauge: callers add to (or set) `value` directly. */
export class ValueFamily extends Family<ValueSeries> {
	protected create(labels: Labels): ValueSeries {
		return { labels, value: 0 };
	}
	protected item(series: ValueSeries) {
		return { labels: series.labels, value: series.value };
	}
}

export class HistogramSeries {
	/** Observations per bucket, each counted once (in its smallest bound); the last slot is above every bound. */
	private readonly counts: number[];
	sum = 0;
	count = 0;
	constructor(
		readonly labels: Labels,
		private readonly bounds: readonly number[],
	) {
		this.counts = new Array<number>(bounds.length + 1).fill(0);
	}

	observe(value: number): void {
		let i = 0;
		while (i < this.bounds.length && value > this.bounds[i]) i++;
		this.counts[i]++;
		this.sum += value;
		this.count++;
	}

	/** Cumulative counts by bound, as Prometheus's `le` buckets read. */
	buckets(): Record<string, number> {
		const buckets: Record<string, number> = {};
		let below = 0;
		this.bounds.forEach((bound, i) => (buckets[bound] = below += this.counts[i]));
		return buckets;
	}
}

export class HistogramFamily extends Family<HistogramSeries> {
	constructor(
		name: string,
		description: string,
		unit: string,
		private readonly bounds: readonly number[],
	) {
		super(name, "histogram", description, unit);
	}
	protected create(labels: Labels): HistogramSeries {
		return new HistogramSeries(labels, this.bounds);
	}
	protected item(series: HistogramSeries) {
		return { labels: series.labels, count: series.count, sum: series.sum, buckets: series.buckets() };
	}
}

/** The bound families of a broker, rendered on /metrics after Moleculer's registry. */
const familiesOf = new WeakMap<object, MoleculerMetric[]>();

export function addFamilies(broker: object, families: MoleculerMetric[]): void {
	familiesOf.set(broker, [...(familiesOf.get(broker) ?? []), ...families]);
}

export function boundFamilies(broker: object): MoleculerMetric[] {
	return familiesOf.get(broker) ?? [];
}

/**
 * The counter (or gauge) family `name` of a broker, made and added at its first use: for families several modules count
 * into.
 */
export function sharedValueFamily(
	broker: object,
	name: string,
	type: "counter" | "gauge",
	description: string,
): ValueFamily {
	const known = boundFamilies(broker).find(family => family.name === name);
	if (known instanceof ValueFamily) return known;
	const family = new ValueFamily(name, type, description);
	addFamilies(broker, [family]);
	return family;
}
