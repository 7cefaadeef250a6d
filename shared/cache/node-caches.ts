import { ServiceBroker } from "moleculer";
import { HeldCache, HotCache, HotCacheBounds } from "./hot-cache";
import { lookupCounter } from "./cache-metrics";

/** A cache any node may hold: its name (what invalidations name) and bounds; `V` is the type of what it keeps. */
export interface CacheDefinition<V extends object> extends HotCacheBounds {
	readonly name: string;
	/** Never set: it only carries the type of the values. */
	readonly values?: V;
}

export function defineCache<V extends object>(name: string, bounds: HotCacheBounds): CacheDefinition<V> {
	return { name, ...bounds };
}

/** The caches each broker (node) holds, by name; a node holds a cache from its first use. */
const held = new WeakMap<ServiceBroker, Map<string, HeldCache>>();

/** This node's cache of a definition, made at its first use. */
export function cacheOf<V extends object>(broker: ServiceBroker, definition: CacheDefinition<V>): HotCache<V> {
	let caches = held.get(broker);
	if (!caches) held.set(broker, (caches = new Map<string, HeldCache>()));
	const kept = caches.get(definition.name);
	// Only this function makes the caches, each from the one definition of its name: its values are V.
	if (kept) return kept as HotCache<V>;
	const cache = new HotCache<V>(definition.name, definition, lookupCounter(broker, definition.name));
	caches.set(definition.name, cache);
	return cache;
}

/** This node's cache of that name, if it holds one. */
export function heldCache(broker: ServiceBroker, name: string): HeldCache | undefined {
	return held.get(broker)?.get(name);
}

/** Who else on a node wants to hear of the keys dropped from a named cache (what was made from its records). */
export type InvalidationListener = (cache: string, keys: readonly string[]) => void;

const listeners = new WeakMap<ServiceBroker, Set<InvalidationListener>>();

/** Hears every invalidation that reaches this node, of any cache, whether or not the node holds it. */
export function onInvalidation(broker: ServiceBroker, listener: InvalidationListener): void {
	let found = listeners.get(broker);
	if (!found) listeners.set(broker, (found = new Set()));
	found.add(listener);
}

/** Drops keys from this node's cache of that name, and tells the listeners. */
export function invalidateHeld(broker: ServiceBroker, name: string, keys: readonly string[]): void {
	heldCache(broker, name)?.invalidate(keys);
	listeners.get(broker)?.forEach(listener => listener(name, keys));
}

/** Empties every cache this node holds. */
export function clearHeldCaches(broker: ServiceBroker): void {
	held.get(broker)?.forEach(cache => cache.clear());
}
