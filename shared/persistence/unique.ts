import { failures } from "../errors";
import { IndexSpec, StoreAdapter, Update } from "./store";

/** How an adapter recognises its driver's unique-index violations. */
export interface UniqueViolations {
	/** The field a violation broke ("" when it cannot tell), or undefined when `err` is no violation. */
	violatedField(err: unknown, written: Record<string, unknown> | undefined): string | undefined;
}

/**
 * Makes every write of an adapter turn a unique-index violation into 409 AlreadyExists naming the
 * field; other errors pass through unchanged.
 */
export function guardUniqueIndexes(adapter: StoreAdapter & UniqueViolations): StoreAdapter {
	type Guarded = StoreAdapter & UniqueViolations;
	const reject = (self: Guarded, err: unknown, written: Record<string, unknown> | undefined): never => {
		const field = self.violatedField(err, written);
		if (field === undefined) throw err;
		throw failures.alreadyExists(field || undefined, field ? `A record with this ${field} already exists` : undefined);
	};
	const { insert, updateById, updateMany } = adapter;
	// Plain functions and `this`, not the captured adapter: Moleculer clones schema values.
	adapter.insert = function (this: Guarded, doc) {
		return insert.call(this, doc).catch(err => reject(this, err, doc));
	};
	adapter.updateById = function (this: Guarded, id, update) {
		return updateById.call(this, id, update).then(
			doc => doc ?? null,
			err => reject(this, err, update.$set),
		);
	};
	adapter.updateMany = function (this: Guarded, query, update: Update) {
		return updateMany.call(this, query, update).catch(err => reject(this, err, update.$set));
	};
	return adapter;
}

/** The unique field whose value in `written` equals `key`: which index a violation came from. */
export function uniqueFieldHolding(specs: IndexSpec[], written: Record<string, unknown> | undefined, key: unknown): string {
	const uniques = specs.filter(s => s.unique);
	const spec = uniques.find(s => written && key !== undefined && written[s.field] === key) ?? (uniques.length === 1 ? uniques[0] : undefined);
	return spec ? reportedField(specs, spec.field) : "";
}

/** The request field to name for a violation of the index on `field`. */
export function reportedField(specs: IndexSpec[], field: string): string {
	return specs.find(s => s.field === field)?.reportAs ?? field;
}
