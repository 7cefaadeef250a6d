/**
 * What Plaza's services may ask of a store: the part of moleculer-db's adapter interface that the
 * NeDB, MongoDB and PostgreSQL adapters all honour, plus declared indexes. Anything beyond it
 * must first become a case of the adapter contract suite (test/store-contract.test.ts).
 */

/** A stored document: `_id` is the record's GUID (N form); timestamps are epoch milliseconds. */
export type Doc = { _id: string } & Record<string, unknown>;

/**
 * A query in the common MongoDB subset: equality (on a list field: membership), $in, $nin, $ne,
 * $gt/$gte/$lt/$lte (compare values of the bound's type), $exists, $or, $and. Not in it: $eq (NeDB
 * lacks it), `{ Field: null }` (NeDB does not match a missing field), and $ne/$nin on a list field
 * (NeDB tests any element, MongoDB every element).
 */
export type Query = Record<string, unknown>;

/**
 * Updates of top-level fields: `$set`, `$unset`, `$inc`, `$push` and `$addToSet` (one item or
 * `{ $each: [...] }`), `$pull` (an item or `{ $in: [...] }`; NeDB refuses it on a missing field).
 */
export type Update = Record<string, Record<string, unknown>>;

export interface FindParams {
	query?: Query;
	/**
	 * Field names, "-Field" for descending; put `_id` last for a stable order. Missing fields come
	 * first (last when descending); a sorted field should hold one type, as stores order types differently.
	 */
	sort?: string[];
	offset?: number;
	limit?: number;
}

/**
 * An index a service needs. Compound unique keys are stored as one derived field (for example
 * `PairKey: "<owner>:<user>"`), because the embedded store indexes single fields only.
 */
export interface IndexSpec {
	field: string;
	/** A unique field holds single values (no lists): PostgreSQL compares it with `=`. */
	unique?: boolean;
	/** Documents without the field are not indexed (and so never collide). */
	sparse?: boolean;
	/** The request field a unique violation names, when `field` is derived from it (EmailKey → Email). */
	reportAs?: string;
}

export interface StoreAdapter {
	find(params: FindParams): Promise<Doc[]>;
	findOne(query: Query): Promise<Doc | null>;
	findById(id: string): Promise<Doc | null>;
	findByIds(ids: string[]): Promise<Doc[]>;
	count(params: { query?: Query }): Promise<number>;
	/** Rejects with 409 AlreadyExists (naming the field) when a unique index would be broken. */
	insert(doc: Doc): Promise<Doc>;
	/** The updated document, or null when there is none with that id. */
	updateById(id: string, update: Update): Promise<Doc | null>;
	updateMany(query: Query, update: Update): Promise<number>;
	removeById(id: string): Promise<unknown>;
	removeMany(query: Query): Promise<number>;
	clear(): Promise<number>;
	/** Idempotent: declared indexes are (re)created at every start. */
	ensureIndex(spec: IndexSpec): Promise<void>;
}
