import path from "node:path";
import Datastore from "@seald-io/nedb";
import { MemoryAdapter } from "moleculer-db";
import { Doc, IndexSpec, Update } from "./store";
import { mapUniqueViolation, uniqueFieldHolding } from "./unique";

/** NeDB's datastore with the promise-returning methods moleculer-db's adapter calls. */
type NeDatastore = Datastore & Record<"insert" | "findOne" | "count" | "remove" | "ensureIndex" | "update", (...args: unknown[]) => Promise<unknown>>;

const compactEveryMs = 10 * 60 * 1000;

/**
 * The embedded store: NeDB files under a data folder (one file per collection), or memory only.
 * Adds declared indexes, 409 on unique violations, periodic compaction of the append-only file,
 * and a stop that compacts and releases its timer so the process can exit.
 */
export class NeDbStoreAdapter extends MemoryAdapter {
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

	override async insert(entity: object): Promise<object> {
		try {
			return await super.insert(entity);
		} catch (err) {
			return this.uniqueViolation(err, entity as Doc);
		}
	}

	override async updateById(id: string | number, update: object): Promise<object> {
		try {
			return (await super.updateById(id, update)) ?? null;
		} catch (err) {
			return this.uniqueViolation(err, (update as Update).$set);
		}
	}

	override async updateMany(query: object, update: object): Promise<number> {
		try {
			return await super.updateMany(query, update);
		} catch (err) {
			return this.uniqueViolation(err, (update as Update).$set);
		}
	}

	private uniqueViolation(err: unknown, doc: Record<string, unknown> | undefined): never {
		const e = err as { errorType?: string; key?: unknown };
		return mapUniqueViolation(err, uniqueFieldHolding(this.uniques, doc, e.key), e.errorType === "uniqueViolated");
	}
}
