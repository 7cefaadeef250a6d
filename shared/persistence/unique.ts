import { failures } from "../errors";
import { IndexSpec } from "./store";

/**
 * Turns a store's unique-index violation into 409 AlreadyExists naming the field, when the
 * adapter can tell which one; other errors pass through unchanged.
 */
export function mapUniqueViolation(err: unknown, field: string | undefined, isViolation: boolean): never {
	if (isViolation) throw failures.alreadyExists(field, field ? `A record with this ${field} already exists` : undefined);
	throw err;
}

/** The unique field whose value in `doc` equals `key`: which index a violation came from. */
export function uniqueFieldHolding(specs: IndexSpec[], doc: Record<string, unknown> | undefined, key: unknown): string | undefined {
	const uniques = specs.filter(s => s.unique);
	const spec = uniques.find(s => doc && key !== undefined && doc[s.field] === key) ?? (uniques.length === 1 ? uniques[0] : undefined);
	return spec && (spec.reportAs ?? spec.field);
}

/** The request field to name for a violation of the index on `field`. */
export function reportedField(specs: IndexSpec[], field: string): string {
	return specs.find(s => s.field === field)?.reportAs ?? field;
}
