import DbService from "moleculer-db";
import { ServiceSchema } from "moleculer";
import { StoreConfig } from "../config";
import { IndexSpec, StoreAdapter } from "./store";
import { NeDbStoreAdapter } from "./nedb.adapter";
import { MongoStoreAdapter } from "./mongo.adapter";
import { PostgresStoreAdapter } from "./postgres.adapter";
import { guardUniqueIndexes, UniqueViolations } from "./unique";

type PlazaAdapter = StoreAdapter & UniqueViolations;

/** The adapter for a collection in the configured store. */
export function createAdapter(store: StoreConfig, collection: string): StoreAdapter {
	return guardUniqueIndexes(adapterOf(store, collection));
}

function adapterOf(store: StoreConfig, collection: string): PlazaAdapter {
	switch (store.kind) {
		case "mongo":
			return new MongoStoreAdapter(store.uri) as unknown as PlazaAdapter;
		case "postgres":
			return new PostgresStoreAdapter(store.url, collection);
		case "sqlite":
			return new NeDbStoreAdapter(store.dir, collection) as unknown as PlazaAdapter;
		case "memory":
			return new NeDbStoreAdapter(undefined, collection) as unknown as PlazaAdapter;
	}
}

/** What a service that mixes in the store gets on `this`. */
export interface StoreMethods {
	adapter: StoreAdapter;
}

/**
 * Persistence for a service: moleculer-db's connection handling (connect with retries on start,
 * disconnect on stop) on the configured store, with the collection's indexes created at start.
 * moleculer-db's generic CRUD actions are switched off: a service publishes only its catalogue actions.
 */
export function storeMixin(store: StoreConfig, collection: string, indexes: IndexSpec[] = []): Partial<ServiceSchema> {
	return {
		mixins: [DbService],
		collection,
		adapter: createAdapter(store, collection),
		actions: { find: false, count: false, list: false, create: false, insert: false, get: false, update: false, remove: false },
		async afterConnected(this: StoreMethods) {
			for (const index of indexes) await this.adapter.ensureIndex(index);
		},
	} as Partial<ServiceSchema>;
}
