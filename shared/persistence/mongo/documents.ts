/**
 * The fields of `fields` that have a value. MongoDB documents leave an empty field out (the driver
 * would write undefined as null), and records leave it out as SQL's `present` does.
 */
export function definedFields<T extends object>(fields: T): T {
	return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) as T;
}
