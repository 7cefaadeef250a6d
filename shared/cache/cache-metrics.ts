import { ServiceBroker } from "moleculer";

/** Lookups in the hot caches, per cache: Prometheus `plaza_cache_hits_total{cache}` and `plaza_cache_misses_total{cache}`. */
export const cacheMetrics = {
	hits: "plaza.cache.hits.total",
	misses: "plaza.cache.misses.total",
};

/** What counts the lookups of one cache on this node (nothing when metrics are off). */
export function lookupCounter(broker: ServiceBroker, cache: string): (hits: number, misses: number) => void {
	if (!broker.isMetricsEnabled()) return () => undefined;
	const described: Array<[string, string]> = [
		[cacheMetrics.hits, "Keys found in a hot cache"],
		[cacheMetrics.misses, "Keys a hot cache had to load"],
	];
	for (const [name, description] of described) {
		if (!broker.metrics.getMetric(name)) broker.metrics.register({ type: "counter", name, labelNames: ["cache"], description });
	}
	const labels = { cache };
	return (hits, misses) => {
		if (hits) broker.metrics.increment(cacheMetrics.hits, labels, hits);
		if (misses) broker.metrics.increment(cacheMetrics.misses, labels, misses);
	};
}
