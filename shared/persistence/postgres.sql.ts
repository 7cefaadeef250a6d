import { escapeIdentifier, escapeLiteral } from "pg";

/** The bound parameters of one statement: values travel apart from the SQL text, never inside it. */
export class Params {
	readonly values: unknown[] = [];

	/** The placeholder of `value`, with a cast when given. */
	add(value: unknown, cast?: string): string {
		this.values.push(value);
		return `$${this.values.length}${cast ? `::${cast}` : ""}`;
	}

	/** `value` as a jsonb parameter (JSON text: pg would turn a JS array into a PostgreSQL array). */
	json(value: unknown): string {
		return this.add(JSON.stringify(value ?? null), "jsonb");
	}
}

/** A quoted identifier: table and index names come from collection and field names. */
export const quoteName = escapeIdentifier;

/**
 * `doc->'A'->'B'` for the field "A.B". Field names are SQL literals, not parameters, so that a
 * query's expression is the very expression an index was built on (the planner matches them by text).
 */
export function fieldExpr(field: string): string {
	return ["doc", ...fieldPath(field).map(name => escapeLiteral(name))].join("->");
}

/** The names of a (dotted) field path; operators and empty names are programming errors. */
export function fieldPath(field: string): string[] {
	const names = field.split(".");
	if (names.some(name => !name || name.startsWith("$") || name.includes("\0"))) throw new Error(`"${field}" is not a field name the store accepts`);
	return names;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
