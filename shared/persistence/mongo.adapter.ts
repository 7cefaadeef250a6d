import MongoDbAdapter from "moleculer-db-adapter-mongo";
import { Doc, IndexSpec, Update } from "./store";
import { mapUniqueViolation, reportedField, uniqueFieldHolding } from "./unique";

interface MongoError {
	code?: number;
	keyValue?: Record<string, unknown>;
	message?: string;
}

/** MongoDB through moleculer-db-adapter-mongo, with declared indexes and 409 on unique violations. */
export class MongoStoreAdapter extends MongoDbAdapter {
	private readonly uniques: IndexSpec[] = [];

	/** The collection is named by the service schema's `collection` (set by the store mixin). */
	constructor(uri: string) {
		super(uri, { useUnifiedTopology: true });
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		if (spec.unique) this.uniques.push(spec);
		await this.collection.createIndex({ [spec.field]: 1 }, { unique: !!spec.unique, sparse: !!spec.sparse });
	}

	// The adapter's typings say insert yields an array; it yields the inserted document.
	override async insert(entity: object): Promise<object[]> {
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
		const e = err as MongoError;
		const key = e.keyValue ? Object.keys(e.keyValue)[0] : undefined;
		const field = key ? reportedField(this.uniques, key) : uniqueFieldHolding(this.uniques, doc, undefined);
		return mapUniqueViolation(err, field, e.code === 11000);
	}
}
