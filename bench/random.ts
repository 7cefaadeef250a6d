/**
 * A small deterministic generator (mulberry32) in [0, 1): the same seed makes the same sequence, so the same community
 * and the same load.
 */
export function random(seed: number): () => number {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** An integer drawn evenly from `low`…`high`, both included. */
export const between = (rand: () => number, low: number, high: number) => low + Math.floor(rand() * (high - low + 1));

/** `count` different items of `list` (all of them when it has fewer), drawn evenly. */
export function sampleOf<T>(rand: () => number, list: readonly T[], count: number): T[] {
	const copy = [...list];
	const n = Math.min(count, copy.length);
	// The first n steps of a Fisher–Yates shuffle.
	for (let i = 0; i < n; i++) {
		const j = i + Math.floor(rand() * (copy.length - i));
		[copy[i], copy[j]] = [copy[j], copy[i]];
	}
	return copy.slice(0, n);
}
