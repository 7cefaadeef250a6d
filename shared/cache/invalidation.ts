import { Context, ServiceBroker } from "moleculer";
import { CacheDefinition, invalidateHeld } from "./node-caches";

/** The event that drops keys from a named cache on every node that holds it. */
export const invalidationEvent = "plaza.cache.invalidate";

export interface Invalidation {
	cache: string;
	keys: string[];
}

/**
 * Drops `keys` from the named cache on every node: on this one at once, on the others by an event.
 * A writer awaits this after its write and before it answers: the event then leaves on the bus
 * ahead of the reply (NATS delivers one publisher's messages in order), so a read sent after the
 * reply, to any node, finds no stale entry.
 */
export async function invalidate(ctx: Context, definition: CacheDefinition<object>, keys: ReadonlyArray<string | undefined>): Promise<void> {
	const unique = [...new Set(keys.filter((key): key is string => !!key))];
	if (unique.length === 0) return;
	invalidateHeld(ctx.broker, definition.name, unique);
	await ctx.broadcast<Invalidation>(invalidationEvent, { cache: definition.name, keys: unique });
}

/** An invalidation that reached this node (its own included: applying one twice is harmless). */
export function applyInvalidation(broker: ServiceBroker, invalidation: Invalidation): void {
	if (typeof invalidation?.cache !== "string" || !Array.isArray(invalidation.keys)) return;
	invalidateHeld(broker, invalidation.cache, invalidation.keys.map(String));
}
