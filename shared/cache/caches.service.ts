import { Context, Service, ServiceBroker, ServiceSchema } from "moleculer";
import { applyInvalidation, Invalidation, invalidationEvent } from "./invalidation";
import { clearHeldCaches } from "./node-caches";
import { Batch, itemsOf } from "../bus/turn-batch";
import { DomainChange, domainChangedEvent, domainGenerations } from "./domain-changes";

/**
 * Runs on every node, whatever its services: applies the invalidations broadcast by writers to the
 * caches this node holds, and empties them all after a time cut off from the bus (the transporter
 * reconnected, or a node came back), when invalidations may have been missed.
 */
export function cachesService(): ServiceSchema {
	return {
		name: "caches",
		events: {
			[invalidationEvent](this: Service, ctx: Context<Batch<Invalidation>>) {
				for (const invalidation of itemsOf(ctx.params)) applyInvalidation(this.broker, invalidation);
			},
			[domainChangedEvent](this: Service, ctx: Context<Batch<DomainChange>>) {
				for (const change of itemsOf(ctx.params))
					if (typeof change?.domain === "string") domainGenerations(this.broker).bump(change.domain);
			},
			"$transporter.connected"(this: Service, ctx: Context<{ wasReconnect?: boolean }>) {
				if (ctx.params?.wasReconnect) forgetAll(this.broker);
			},
			"$node.connected"(this: Service, ctx: Context<{ reconnected?: boolean }>) {
				if (ctx.params?.reconnected) forgetAll(this.broker);
			},
		},
	};
}

function forgetAll(broker: ServiceBroker): void {
	clearHeldCaches(broker);
	domainGenerations(broker).bumpAll();
}
