import MongoDbAdapter from "moleculer-db-adapter-mongo";
import { IndexSpec } from "./store";
import { reportedField, uniqueFieldHolding, UniqueViolations } from "./unique";

interface MongoError {
	code?: number;
	keyValue?: Record<string, unknown>;
	message?: string;
}

/** MongoDB through moleculer-db-adapter-mongo, with declared indexes; recognises unique violations. */
export class MongoStoreAdapter extends MongoDbAdapter implements UniqueViolations {
	private readonly uniques: IndexSpec[] = [];

	/** The collection is named by the service schema's `collection` (set by the store mixin). */
	constructor(uri: string) {
		super(uri, { useUnifiedTopology: true });
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		if (spec.unique) this.uniques.push(spec);
		await this.collection.createIndex({ [spec.field]: 1 }, { unique: !!spec.unique, sparse: !!spec.sparse });
	}

	violatedField(err: unknown, written: Record<string, unknown> | undefined): string | undefined {
		const e = err as MongoError;
		if (e.code !== 11000) return undefined;
		const key = e.keyValue ? Object.keys(e.keyValue)[0] : undefined;
		return key ? reportedField(this.uniques, key) : uniqueFieldHolding(this.uniques, written, undefined);
	}
}
