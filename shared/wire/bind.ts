import Joi from "joi";

/**
 * Input binding is case-insensitive (PRODUCT.md §1): `firstName`, `FIRSTNAME` and `FirstName` all bind
 * to FirstName; an exact match wins over a case-folded one; unknown fields are dropped, and a null
 * counts as not given, as it does on output. Only the input's own fields count: never its prototype's.
 */
export function binderFor(schema: Joi.ObjectSchema): (input: Record<string, unknown>) => Record<string, unknown> {
	const keys = Object.keys((schema.describe().keys ?? {}) as Record<string, unknown>);
	const byFolded = new Map(keys.map(k => [k.toLowerCase(), k]));
	return input => {
		const bound: Record<string, unknown> = {};
		for (const [name, value] of Object.entries(input)) {
			const key = byFolded.get(name.toLowerCase());
			if (key !== undefined && value !== null && (name === key || !Object.hasOwn(input, key))) bound[key] = value;
		}
		return bound;
	};
}
