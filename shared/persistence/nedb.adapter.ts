import path from "node:path";
import { MemoryAdapter } from "moleculer-db";
import { Doc, IndexSpec, Update } from "./store";
import { mapUniqueViolation, uniqueFieldHolding } from "./unique";

/** NeDB's datastore as far as Plaza touches it (the adapter promisifies these). */
interface NeDatastore {
	ensureIndex(options: { fieldName: string; unique?: boolean; sparse?: boolean }): Promise<void>;
	setAutocompactionInterval(ms: number): void;
	stopAutocompaction(): void;
	compactDatafileAsync(): Promise<void>;
	inMemoryOnly: boolean;
}

const compactEveryMs = 10 * 60 * 1000;

/**
 * The embedded store: NeDB files under a data folder (one file per collection), or memory only.
 * Adds declared indexes, 409 on unique violations, periodic compaction of the append-only file,
 * and a stop that compacts and releases its timer so the process can exit.
 */
export class NeDbStoreAdapter extends MemoryAdapter {
	private readonly uniques: IndexSpec[] = [];

	constructor(dir: string | undefined, collection: string) {
		super(dir ? { filename: path.join(dir, `${collection}.db`) } : {});
	}

	private get store(): NeDatastore {
		return (this as unknown as { db: NeDatastore }).db;
	}

	override async connect(): Promise<void> {
		await super.connect();
		if (!this.store.inMemoryOnly) this.store.setAutocompactionInterval(compactEveryMs);
	}

	override async disconnect(): Promise<void> {
		const db = this.store;
		if (db) {
			db.stopAutocompaction();
			if (!db.inMemoryOnly) await db.compactDatafileAsync();
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
