import { random } from "./random";

/** A friendship graph: users 0…n−1, each edge once (lower index first), and each user's friends. */
export interface SocialGraph {
	users: number;
	edges: Array<[number, number]>;
	friends: number[][];
}

/**
 * A Chung–Lu graph (each pair connected with probability w_i·w_j / Σw, at most 1) whose expected
 * degrees follow a power law w_i ∝ (i+1)^−α: α is chosen so that the busiest user's expected degree
 * is `maxDegree` when the mean is `meanDegree`. The hubs' pairs saturate at 1, so the busiest
 * users end a little below `maxDegree`; describe() says what came out. Deterministic for a seed.
 */
export function socialGraph(users: number, meanDegree: number, maxDegree: number, seed: number): SocialGraph {
	const weights = powerLawWeights(users, Math.min(meanDegree, users - 1), Math.min(maxDegree, users - 1));
	const total = weights.reduce((sum, w) => sum + w, 0);
	const rand = random(seed);
	const drawn: Array<[number, number]> = [];
	for (let i = 0; i < users; i++)
		for (let j = i + 1; j < users; j++) if (rand() < (weights[i] * weights[j]) / total) drawn.push([i, j]);
	// Users in a random order, so that the hubs are not the first ids (nor the first to sign up).
	const order = shuffled(users, rand);
	const edges = drawn.map(([a, b]): [number, number] => [Math.min(order[a], order[b]), Math.max(order[a], order[b])]);
	const friends: number[][] = Array.from({ length: users }, () => []);
	for (const [a, b] of edges) {
		friends[a].push(b);
		friends[b].push(a);
	}
	return { users, edges, friends };
}

/** Mean, median and largest degree, and how many users have none. */
export function describe(graph: SocialGraph): string {
	const degrees = graph.friends.map(f => f.length).sort((a, b) => a - b);
	const mean = (2 * graph.edges.length) / graph.users;
	return `${graph.users} users, ${graph.edges.length} connections: degree mean ${mean.toFixed(1)}, median ${degrees[Math.floor(degrees.length / 2)]}, max ${degrees.at(-1)}, ${degrees.filter(d => d === 0).length} with none`;
}

/**
 * Weights (i+1)^−α scaled to mean `mean`, α found by bisection so that the largest is `max` (all equal when max ≤
 * mean).
 */
function powerLawWeights(n: number, mean: number, max: number): number[] {
	const unscaled = (alpha: number) => Array.from({ length: n }, (_, i) => (i + 1) ** -alpha);
	// The largest weight over the mean grows with α: from 1 (α = 0) to n (α → ∞).
	const ratio = (alpha: number) => n / unscaled(alpha).reduce((sum, w) => sum + w, 0);
	let low = 0;
	let high = 4;
	for (let step = 0; step < 50 && max > mean; step++) {
		const alpha = (low + high) / 2;
		if (ratio(alpha) < max / mean) low = alpha;
		else high = alpha;
	}
	const weights = unscaled(max > mean ? low : 0);
	const scale = (mean * n) / weights.reduce((sum, w) => sum + w, 0);
	return weights.map(w => w * scale);
}

function shuffled(n: number, rand: () => number): number[] {
	const order = Array.from({ length: n }, (_, i) => i);
	for (let i = n - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[order[i], order[j]] = [order[j], order[i]];
	}
	return order;
}
