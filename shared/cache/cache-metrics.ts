import { ServiceBroker } from "moleculer";
import { sharedValueFamily } from "../observability/metric-series";

/**
 * Lookups in the hot caches, per cache: Prometheus `plaza_cache_hits_total{cache}` and
 * `plaza_cache_misses_total{cache}`.
 */
export const cacheMetrics = {
	hits: "plaza.cache.hits.total",
	misses: "plaza.cache.misses.total",
};

/**
 * What counts the lookups of one cache on this node (nothing when metrics are off): series bound once, counted into
 * plain numbers.
 */
export function lookupCounter(broker: ServiceBroker, cache: string): (hits: number, misses: number) => void {
	if (!broker.isMetricsEnabled()) return () => undefined;
	const hits = sharedValueFamily(broker, cacheMetrics.hits, "counter", "Keys found in a hot cache").series(cache, {
		cache,
	});
	const misses = sharedValueFamily(broker, cacheMetrics.misses, "counter", "Keys a hot cache had to load").series(
		cache,
		{ cache },
	);
	return (found, loaded) => {
		hits.value += found;
		misses.value += loaded;
	};
}
