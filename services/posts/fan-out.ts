import { Context } from "moleculer";
import { readCall } from "../../shared/calls";
import { Readers } from "../../shared/audience";
import { Source, sourceKey } from "./timeline-sources";
import { FanOut, TimelineEntry } from "./timelines.repository";

/**
 * Whose timelines a post goes into, through which of its sources: a `self` source is its one user;
 * the graph names the readers of the others, and a source with more than `limit` readers is left to
 * them to pull (one post never costs an unbounded fan-out).
 */
export async function fanOutOf(ctx: Context, sources: readonly Source[], limit: number): Promise<FanOut> {
	const ids = (kind: Source["kind"]) => sources.filter(s => s.kind === kind).map(s => s.id);
	const follows = ids("follows");
	const members = ids("member");
	const readers: Readers = follows.length || members.length ? await readCall<Readers, object>(ctx, "graph.readersOf", { follows, members, limit }) : { follows: {}, members: {} };
	const entries: TimelineEntry[] = [];
	const oversized: string[] = [];
	for (const source of sources) {
		const key = sourceKey(source);
		const found = source.kind === "self" ? [source.id] : (source.kind === "follows" ? readers.follows : readers.members)[source.id];
		if (found === null || found === undefined) oversized.push(key);
		else for (const ownerId of found) entries.push({ ownerId, source: key });
	}
	return { entries, oversized };
}
