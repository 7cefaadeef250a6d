import { Context, ServiceBroker } from "moleculer";
import { CacheDefinition, invalidateHeld } from "./node-caches";
import { batchedBroadcast } from "../bus/turn-batch";

/**
 * The event that drops keys from named caches on every node that holds them: a batch of Invalidations (see invalidate).
 */
export const invalidationEvent = "plaza.cache.invalidations";

export interface Invalidation {
	cache: string;
	keys: string[];
}

const broadcastInvalidation = batchedBroadcast<Invalidation>(invalidationEvent);

/**
 * Drops `keys` from the named cache here at once and on other nodes by an event. A writer awaits it after its write
 * and before it answers, so that nats-server queues the event ahead of the reply (see bus-barrier.ts); one turn's
 * invalidations leave in one packet per node. A write that forgets it leaves other nodes' caches stale
 * (docs/architecture.md, The invalidation broadcast).
 */
export async function invalidate(
	ctx: Context,
	definition: CacheDefinition<object>,
	keys: ReadonlyArray<string | undefined>,
): Promise<void> {
	const unique = [...new Set(keys.filter((key): key is string => !!key))];
	if (unique.length === 0) return;
	invalidateHeld(ctx.broker, definition.name, unique);
	await broadcastInvalidation(ctx.broker, { cache: definition.name, keys: unique });
}

/** An invalidation that reached this node (its own included: applying one twice is harmless). */
export function applyInvalidation(broker: ServiceBroker, invalidation: Invalidation): void {
	if (typeof invalidation?.cache !== "string" || !Array.isArray(invalidation.keys)) return;
	invalidateHeld(broker, invalidation.cache, invalidation.keys.map(String));
}
