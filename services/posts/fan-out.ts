import { Context } from "moleculer";
import { readCall } from "../../shared/calls";
import { Readers, readersCache } from "../../shared/audience";
import { cacheOf } from "../../shared/cache/node-caches";
import { Source, sourceKey, sourceOfKey } from "./timeline-sources";
import { FanOut, TimelineEntry } from "./timelines.repository";

/**
 * Whose timelines a post goes into, through which of its sources: a `self` source is its one user; the graph names the
 * readers of the others (kept here until it says they changed), and a source with more than `limit` is left for them
 * to pull. A stale list cannot leak a private post: a timeline shows one only while its source is still the reader's.
 */
export async function fanOutOf(ctx: Context, sources: readonly Source[], limit: number): Promise<FanOut> {
	const keys = sources.filter(s => s.kind !== "self").map(sourceKey);
	const kept = keys.length
		? await cacheOf(ctx.broker, readersCache).throughMany(keys, missing => readersOf(ctx, missing, limit))
		: new Map<string, { readers: string[] | null }>();
	const entries: TimelineEntry[] = [];
	const oversized: string[] = [];
	for (const source of sources) {
		const key = sourceKey(source);
		const found = source.kind === "self" ? [source.id] : kept.get(key)?.readers;
		if (!found) oversized.push(key);
		else for (const ownerId of found) entries.push({ ownerId, source: key });
	}
	return { entries, oversized };
}

/** The readers of these sources (by key) from the graph, in one call. */
async function readersOf(
	ctx: Context,
	keys: string[],
	limit: number,
): Promise<Map<string, { readers: string[] | null }>> {
	const sources = keys.map(sourceOfKey);
	const ids = (kind: Source["kind"]) => sources.filter(s => s.kind === kind).map(s => s.id);
	const found = await readCall<Readers, object>(ctx, "graph.readersOf", {
		follows: ids("follows"),
		members: ids("member"),
		limit,
	});
	return new Map(
		sources.map(s => [sourceKey(s), { readers: (s.kind === "follows" ? found.follows : found.members)[s.id] ?? null }]),
	);
}
