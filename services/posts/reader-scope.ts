import { Context, ServiceBroker } from "moleculer";
import { userKey } from "../../shared/streams/stream-event";
import { audienceCache, audienceOf } from "../../shared/audience";
import { onInvalidation } from "../../shared/cache/node-caches";
import { reachOf } from "./posts.sql";
import { readerSources, sourceKey } from "./timeline-sources";

/**
 * What a user's stream listens for and may read: their timeline's sources and what is addressed to them; their reach
 * for private posts; whom they hide (blocked either way) and mute.
 */
export interface ReaderScope {
	keys: string[];
	reach: string[];
	hidden: string[];
	muted: string[];
}

/** A user's stream scope, from their audience (through the node's audience cache, which the graph invalidates). */
export async function readerScope(ctx: Context, userId: string): Promise<ReaderScope> {
	const audience = await audienceOf(ctx, userId);
	return {
		keys: [...readerSources(userId, audience).map(sourceKey), userKey(userId)],
		reach: reachOf({ userId, admin: false, networks: audience.networks, hidden: audience.hidden }),
		hidden: audience.hidden,
		muted: audience.muted,
	};
}

/**
 * Calls back with the users whose stream scope may have changed: the graph dropped their audience (a follow, a
 * membership).
 */
export function onReaderScopeChange(broker: ServiceBroker, changed: (userIds: readonly string[]) => void): void {
	onInvalidation(broker, (cache, keys) => {
		if (cache === audienceCache.name) changed(keys);
	});
}
