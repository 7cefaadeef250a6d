import { Context } from "moleculer";
import { readCall } from "./calls";
import { cacheOf, defineCache } from "./cache/node-caches";

/**
 * Whom and what a user follows (connections and subscriptions), the networks they are a member of, and whose posts and
 * comments they never see (`hidden`: blocked either way) or never see in their timeline (`muted`).
 */
export interface Audience {
	people: string[];
	networks: string[];
	hidden: string[];
	muted: string[];
}

/**
 * Audiences by user id, where posts are read; the graph invalidates a user's when a connection, subscription,
 * membership, block or mute of theirs changes.
 */
export const audienceCache = defineCache<Audience>("audience", { max: 20_000, ttlMs: 60_000 });

/** A user's audience (graph.audienceOf), through this node's cache. */
export function audienceOf(ctx: Context, userId: string): Promise<Audience> {
	return cacheOf(ctx.broker, audienceCache).through(userId, () =>
		readCall<Audience, { userId: string }>(ctx, "graph.audienceOf", { userId }),
	);
}

/**
 * Who reads the sources of a post, by source id (graph.readersOf): null for a source with too many readers to push to.
 */
export interface Readers {
	follows: Record<string, string[] | null>;
	members: Record<string, string[] | null>;
}

/** Sources whose readers changed: users or networks followed (connected or subscribed to), networks joined or left. */
export interface ReadersChange {
	follows?: string[];
	members?: string[];
}

/**
 * The readers of a source, where posts are written, by the source's key (`follows:<id>`,
 * `member:<network>`, as services/posts/timeline-sources.ts names them); the graph invalidates a
 * source's when a connection, subscription or membership changes it.
 */
export const readersCache = defineCache<{ readers: string[] | null }>("readers", { max: 20_000, ttlMs: 60_000 });

/** The keys of `readersCache` a change touches. */
export const readersKeys = ({ follows = [], members = [] }: ReadersChange): string[] => [
	...follows.map(id => `follows:${id}`),
	...members.map(id => `member:${id}`),
];
