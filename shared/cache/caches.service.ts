import { Context, Service, ServiceSchema } from "moleculer";
import { applyInvalidation, Invalidation, invalidationEvent } from "./invalidation";
import { clearHeldCaches } from "./node-caches";

/**
 * Runs on every node, whatever its services: applies the invalidations broadcast by writers to the
 * caches this node holds, and empties them all after a time cut off from the bus (the transporter
 * reconnected, or a node came back), when invalidations may have been missed.
 */
export function cachesService(): ServiceSchema {
	return {
		name: "caches",
		events: {
			[invalidationEvent](this: Service, ctx: Context<Invalidation>) {
				applyInvalidation(this.broker, ctx.params);
			},
			"$transporter.connected"(this: Service, ctx: Context<{ wasReconnect?: boolean }>) {
				if (ctx.params?.wasReconnect) clearHeldCaches(this.broker);
			},
			"$node.connected"(this: Service, ctx: Context<{ reconnected?: boolean }>) {
				if (ctx.params?.reconnected) clearHeldCaches(this.broker);
			},
		},
	};
}
