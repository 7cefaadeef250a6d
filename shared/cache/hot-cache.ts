import { LRUCache } from "lru-cache";

/** How big a cache may grow and how long an entry may live at most. */
export interface HotCacheBounds {
	/** Entries kept at most; the least recently used goes first. */
	max: number;
	/** The backstop: no entry outlives this, whether or not an invalidation reaches it. */
	ttlMs: number;
}

/** What anyone may do to a cache without knowing what it keeps. */
export interface HeldCache {
	readonly name: string;
	has(key: string): boolean;
	invalidate(keys: Iterable<string>): void;
	clear(): void;
}

/** A load in flight for a key: an invalidation of that key meanwhile makes what it read unfit to keep. */
interface Load {
	stale: boolean;
}

/**
 * An LRU of one node with a TTL backstop, filled through loads. A value read before an
 * invalidation and kept after it would be stale until the TTL, so an invalidation of a key also
 * marks the loads of that key in flight, and those do not keep what they read (their callers still
 * get it: they asked before the change was announced). Nothing absent is kept.
 */
export class HotCache<V extends object> implements HeldCache {
	private readonly entries: LRUCache<string, V>;

	private readonly loads = new Map<string, Set<Load>>();

	constructor(
		readonly name: string,
		private readonly bounds: HotCacheBounds,
		private readonly counted: (hits: number, misses: number) => void = () => undefined,
	) {
		this.entries = new LRUCache<string, V>({ max: bounds.max, ttl: bounds.ttlMs });
	}

	/**
	 * The value of `key`: the kept one, else what `load` gives, kept for `keepForMs(value)` (at most
	 * the TTL; not at all for 0 or less) unless the key was invalidated meanwhile. `undefined` is not kept.
	 */
	async through<T extends V | undefined>(
		key: string,
		load: () => Promise<T>,
		keepForMs?: (value: V) => number,
	): Promise<T | V> {
		const kept = this.entries.get(key);
		this.counted(kept === undefined ? 0 : 1, kept === undefined ? 1 : 0);
		if (kept !== undefined) return kept;
		const pending = this.begin(key);
		try {
			const value = await load();
			if (value !== undefined) this.keep(key, value, pending, keepForMs ? keepForMs(value) : this.bounds.ttlMs);
			return value;
		} finally {
			this.end(key, pending);
		}
	}

	/** The values of `keys` that exist: the kept ones, and the others from one `load` of those missing. */
	async throughMany(
		keys: readonly string[],
		load: (missing: string[]) => Promise<Map<string, V>>,
	): Promise<Map<string, V>> {
		const found = new Map<string, V>();
		const missing: string[] = [];
		for (const key of new Set(keys)) {
			const kept = this.entries.get(key);
			if (kept === undefined) missing.push(key);
			else found.set(key, kept);
		}
		this.counted(found.size, missing.length);
		if (missing.length === 0) return found;
		const pending = missing.map(key => [key, this.begin(key)] as const);
		try {
			const loaded = await load(missing);
			for (const [key, ticket] of pending) {
				const value = loaded.get(key);
				if (value === undefined) continue;
				found.set(key, value);
				this.keep(key, value, ticket, this.bounds.ttlMs);
			}
			return found;
		} finally {
			for (const [key, ticket] of pending) this.end(key, ticket);
		}
	}

	/** Whether a live entry is kept for `key` (without counting it as a hit or making it recent). */
	has(key: string): boolean {
		return this.entries.has(key);
	}

	/** Drops these keys, and makes the loads of them in flight keep nothing. */
	invalidate(keys: Iterable<string>): void {
		for (const key of keys) {
			this.entries.delete(key);
			this.loads.get(key)?.forEach(load => (load.stale = true));
		}
	}

	/** Drops everything, as after a time in which invalidations may have been missed. */
	clear(): void {
		this.entries.clear();
		for (const loads of this.loads.values()) loads.forEach(load => (load.stale = true));
	}

	private keep(key: string, value: V, load: Load, ms: number): void {
		if (!load.stale && ms > 0) this.entries.set(key, value, { ttl: Math.min(ms, this.bounds.ttlMs) });
	}

	private begin(key: string): Load {
		const load: Load = { stale: false };
		const loads = this.loads.get(key);
		if (loads) loads.add(load);
		else this.loads.set(key, new Set([load]));
		return load;
	}

	private end(key: string, load: Load): void {
		const loads = this.loads.get(key);
		loads?.delete(load);
		if (loads?.size === 0) this.loads.delete(key);
	}
}
