import { Doc, Query, StoreAdapter } from "./store";

/** A stored document as a record: `_id` becomes `Id`; the writer drops what the record does not declare. */
export function toRecord(doc: Doc): Record<string, unknown> {
	const { _id, ...fields } = doc;
	return { Id: _id, ...fields };
}

/** Creation order with the id as tie-breaker: pages never overlap or skip (PRODUCT.md §1). */
export const stableOrder = ["CreatedTime", "_id"];

/** One page of documents in a stable order; Limit 0 is an empty page. */
export async function pageOf(adapter: StoreAdapter, query: Query, page: { Offset: number; Limit: number }, sort = stableOrder): Promise<Doc[]> {
	if (page.Limit === 0) return [];
	return adapter.find({ query, sort, offset: page.Offset, limit: page.Limit });
}

/**
 * `$set` for the fields given and `$unset` for those given as "" (cleared); undefined fields are
 * left as they are.
 */
export function updateOf(fields: Record<string, unknown>): { $set: Record<string, unknown>; $unset?: Record<string, true> } {
	const $set: Record<string, unknown> = {};
	const $unset: Record<string, true> = {};
	for (const [name, value] of Object.entries(fields)) {
		if (value === "") $unset[name] = true;
		else if (value !== undefined) $set[name] = value;
	}
	return Object.keys($unset).length ? { $set, $unset } : { $set };
}

/** Inserts a document unless a unique key says it exists already: true when this call inserted it. */
export async function insertUnlessExists(adapter: StoreAdapter, doc: Doc): Promise<boolean> {
	try {
		await adapter.insert(doc);
		return true;
	} catch (err) {
		if ((err as { code?: unknown }).code === 409) return false;
		throw err;
	}
}

/** The documents a page of links points at (by `field`), in the links' order; links to nothing are dropped. */
export async function linkedInOrder(adapter: StoreAdapter, links: Doc[], field: string): Promise<Doc[]> {
	const ids = links.map(link => String(link[field]));
	const found = new Map((await adapter.findByIds([...new Set(ids)])).map(doc => [doc._id, doc]));
	return ids.flatMap(id => (found.has(id) ? [found.get(id)!] : []));
}
