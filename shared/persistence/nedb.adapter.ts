import path from "node:path";
import Datastore from "@seald-io/nedb";
import { MemoryAdapter } from "moleculer-db";
import { IndexSpec } from "./store";
import { uniqueFieldHolding, UniqueViolations } from "./unique";

/** NeDB's datastore with the promise-returning methods moleculer-db's adapter calls. */
type NeDatastore = Datastore & Record<"insert" | "findOne" | "count" | "remove" | "ensureIndex" | "update", (...args: unknown[]) => Promise<unknown>>;

const compactEveryMs = 10 * 60 * 1000;

/**
 * The embedded store: NeDB files under a data folder (one file per collection), or memory only.
 * Adds declared indexes, recognises unique violations, compacts of the append-only file,
  the append-only file periodically and at stop, and releases its timer so the process can exit.
 */
export class NeDbStoreAdapter extends MemoryAdapter implements UniqueViolations {
	private readonly uniques: IndexSpec[] = [];

	private readonly filename: string | undefined;

	constructor(dir: string | undefined, collection: string) {
		super({});
		this.filename = dir ? path.join(dir, `${collection}.db`) : undefined;
	}

	private get store(): NeDatastore {
		return (this as unknown as { db: NeDatastore }).db;
	}

	/**
	 * As moleculer-db's connect, but on NeDB's own promise API: promisifying its callback methods,
	 * as the base adapter does, draws a deprecation warning from Node 22 at every start.
	 */
	override async connect(): Promise<void> {
		const db = new Datastore(this.filename ? { filename: this.filename } : {}) as NeDatastore;
		Object.assign(db, {
			insert: db.insertAsync.bind(db),
			findOne: db.findOneAsync.bind(db),
			count: db.countAsync.bind(db),
			remove: db.removeAsync.bind(db),
			ensureIndex: db.ensureIndexAsync.bind(db),
			// The base adapter reads update results as [numAffected, affectedDocuments].
			update: async (query: object, update: object, options: object) => {
				const { numAffected, affectedDocuments } = await db.updateAsync(query, update, options);
				return [numAffected, affectedDocuments];
			},
		});
		(this as unknown as { db: NeDatastore }).db = db;
		await db.loadDatabaseAsync();
		if (this.filename) db.setAutocompactionInterval(compactEveryMs);
	}

	override async disconnect(): Promise<void> {
		const db = this.store;
		if (db) {
			db.stopAutocompaction();
			if (this.filename) await db.compactDatafileAsync();
		}
		await super.disconnect();
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		if (spec.unique) this.uniques.push(spec);
		await this.store.ensureIndex({ fieldName: spec.field, unique: spec.unique, sparse: spec.sparse });
	}

	violatedField(err: unknown, written: Record<string, unknown> | undefined): string | undefined {
		const e = err as { errorType?: string; key?: unknown };
		return e.errorType === "uniqueViolated" ? uniqueFieldHolding(this.uniques, written, e.key) : undefined;
	}
}
