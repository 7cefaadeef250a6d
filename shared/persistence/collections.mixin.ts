import { Service, ServiceBroker, ServiceSchema } from "moleculer";
import { StoreConfig } from "../config";
import { IndexSpec, StoreAdapter } from "./store";
import { createAdapter } from "./store.mixin";

/** The part of moleculer-db's adapter life cycle this mixin drives. */
interface Connectable {
	init(broker: ServiceBroker, service: unknown): void;
	connect(): Promise<void>;
	disconnect(): Promise<void>;
}

/** What a service that mixes in several collections gets on `this`. */
export interface CollectionsMethods<Name extends string> {
	stores: Record<Name, StoreAdapter>;
}

const retryConnectMs = 1000;

/**
 * Persistence for a domain that keeps several collections (moleculer-db's DbService serves one):
 * one adapter per collection on the configured store, connected on start (retrying while the
 * store is down), its indexes created, and disconnected on stop.
 */
export function collectionsMixin<Name extends string>(store: StoreConfig, collections: Record<Name, IndexSpec[]>): Partial<ServiceSchema> {
	const names = Object.keys(collections) as Name[];
	type This = Service & CollectionsMethods<Name>;
	return {
		created(this: Service) {
			const self = this as This;
			self.stores = {} as Record<Name, StoreAdapter>;
			for (const name of names) {
				const adapter = createAdapter(store, name);
				// Adapters read their collection's name from the service schema: each gets a view naming its own.
				(adapter as unknown as Connectable).init(this.broker, { name: this.name, logger: this.logger, broker: this.broker, schema: { collection: name } });
				self.stores[name] = adapter;
			}
		},

		async started(this: Service) {
			for (const name of names) {
				const adapter = (this as This).stores[name];
				for (;;) {
					try {
						await (adapter as unknown as Connectable).connect();
						break;
					} catch (err) {
						this.logger.error(`Connecting the ${name} collection failed; retrying:`, err);
						await new Promise(resolve => setTimeout(resolve, retryConnectMs));
					}
				}
				for (const index of collections[name]) await adapter.ensureIndex(index);
			}
		},

		async stopped(this: Service) {
			for (const name of names) await ((this as This).stores[name] as unknown as Connectable).disconnect();
		},
	};
}
