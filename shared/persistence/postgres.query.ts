import { Query } from "./store";
import { fieldExpr, isPlainObject, Params } from "./postgres.sql";

/**
 * Whether equality on a field is exact. Unique fields hold single values and are compared with `=`
 * (their btree index serves it); any other field may hold a list, so equality also means membership,
 * as in MongoDB: `{ Tags: "x" }` matches `Tags: ["x", "y"]` (jsonb `@>`, served by a GIN index).
 */
export type ExactFields = (field: string) => boolean;

/** The WHERE condition of a query in the store's MongoDB subset (store.ts); values become parameters. */
export function whereOf(query: Query | undefined, params: Params, exact: ExactFields): string {
	const parts = Object.entries(query ?? {}).map(([key, value]) => {
		if (key === "$or" || key === "$and") return logical(key, value, params, exact);
		if (key.startsWith("$")) throw unsupported(key);
		const target = key === "_id" ? idColumn : docField(fieldExpr(key), exact(key));
		return `(${fieldCondition(target, value, params)})`;
	});
	return parts.length ? parts.join(" AND ") : "TRUE";
}

/** ORDER BY for "Field" / "-Field" names: missing fields first when ascending, as MongoDB and NeDB order them. */
export function orderOf(sort: string[] | string | undefined): string {
	const names = typeof sort === "string" ? sort.split(/[\s,]+/).filter(Boolean) : (sort ?? []);
	if (!names.length) return "";
	const terms = names.map(name => {
		const descending = name.startsWith("-");
		const field = descending ? name.slice(1) : name;
		if (field === "_id") return descending ? "id DESC" : "id ASC";
		return `${fieldExpr(field)} ${descending ? "DESC NULLS LAST" : "ASC NULLS FIRST"}`;
	});
	return ` ORDER BY ${terms.join(", ")}`;
}

/** How one operator is written for the `id` column or for a field of `doc`. */
interface Target {
	equals(value: unknown, p: Params): string;
	in(values: unknown[], p: Params): string;
	compare(op: ">" | ">=" | "<" | "<=", value: unknown, p: Params): string;
	exists(): string;
}

const comparisons = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;

function fieldCondition(target: Target, value: unknown, p: Params): string {
	if (!isOperators(value)) return target.equals(value, p);
	return Object.entries(value)
		.map(([op, operand]) => {
			switch (op) {
				case "$eq":
					return target.equals(operand, p);
				case "$ne":
					return not(target.equals(operand, p));
				case "$in":
					return target.in(listOf(op, operand), p);
				case "$nin":
					return not(target.in(listOf(op, operand), p));
				case "$gt":
				case "$gte":
				case "$lt":
				case "$lte":
					return target.compare(comparisons[op], operand, p);
				case "$exists":
					return operand ? target.exists() : `NOT ${target.exists()}`;
				default:
					throw unsupported(op);
			}
		})
		.join(" AND ");
}

function logical(op: "$or" | "$and", value: unknown, p: Params, exact: ExactFields): string {
	const parts = listOf(op, value).map(query => {
		if (!isPlainObject(query)) throw new Error(`${op} takes a list of queries`);
		return `(${whereOf(query, p, exact)})`;
	});
	if (!parts.length) throw new Error(`${op} needs at least one query`);
	return `(${parts.join(op === "$or" ? " OR " : " AND ")})`;
}

/** NULL (a missing field) counts as "no match", so the negation matches it: `$ne`/`$nin` select missing fields. */
const not = (condition: string) => `NOT COALESCE(${condition}, FALSE)`;

const idColumn: Target = {
	equals: (value, p) => (typeof value === "string" ? `id = ${p.add(value)}` : "FALSE"),
	in: (values, p) => `id = ANY(${p.add(values.filter(v => typeof v === "string"), "text[]")})`,
	compare: (op, value, p) => (typeof value === "string" ? `id ${op} ${p.add(value)}` : "FALSE"),
	exists: () => "TRUE",
};

function docField(e: string, exact: boolean): Target {
	const isNull = `(${e} IS NULL OR ${e} = 'null'::jsonb)`;
	const jsonList = (values: unknown[]) => values.map(v => JSON.stringify(v));
	const scalarsIn = (scalars: Array<string | number | boolean>, p: Params) => {
		if (exact) return `${e} = ANY(${p.add(jsonList(scalars), "jsonb[]")})`;
		// `?|` (any of these strings, as the value or an element) is the form a GIN index serves; it also matches object keys.
		if (scalars.every(v => typeof v === "string")) return `(${e} ?| ${p.add(scalars, "text[]")} AND jsonb_typeof(${e}) <> 'object')`;
		return `${e} @> ANY(${p.add(jsonList(scalars), "jsonb[]")})`;
	};
	return {
		equals(value, p) {
			if (value === null || value === undefined) return isNull;
			return isScalar(value) && !exact ? `${e} @> ${p.json(value)}` : `${e} = ${p.json(documentValue(value))}`;
		},
		in(values, p) {
			const scalars = values.filter(isScalar);
			const others = values.filter(v => v !== null && v !== undefined && !isScalar(v)).map(documentValue);
			const parts: string[] = [];
			if (values.some(v => v === null || v === undefined)) parts.push(isNull);
			if (scalars.length) parts.push(scalarsIn(scalars, p));
			if (others.length) parts.push(`${e} = ANY(${p.add(jsonList(others), "jsonb[]")})`);
			return parts.length ? `(${parts.join(" OR ")})` : "FALSE";
		},
		compare: (op, value, p) => `(jsonb_typeof(${e}) = '${rangeType(value)}' AND ${e} ${op} ${p.json(value)})`,
		exists: () => `${e} IS NOT NULL`,
	};
}

/** Ranges compare values of the bound's own type, as MongoDB does (jsonb would order numbers after strings). */
function rangeType(value: unknown): "number" | "string" | "boolean" {
	const type = typeof value;
	if (type === "number" || type === "string" || type === "boolean") return type;
	throw new Error(`A range bound must be a number, a string or a boolean, got ${JSON.stringify(value)}`);
}

function isScalar(value: unknown): value is string | number | boolean {
	return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** Lists and plain objects compare as whole JSON values; anything else (dates, regular expressions) is not a stored value. */
function documentValue(value: unknown): unknown {
	if (isScalar(value) || Array.isArray(value) || isPlainObject(value)) return value;
	throw new Error(`The store cannot compare with ${Object.prototype.toString.call(value)}: store timestamps as epoch milliseconds`);
}

/** An object of operators (`{ $gte: 3, $lt: 6 }`) rather than a value to compare with. */
function isOperators(value: unknown): value is Record<string, unknown> {
	if (!isPlainObject(value)) return false;
	const keys = Object.keys(value);
	const operators = keys.filter(k => k.startsWith("$"));
	if (operators.length && operators.length !== keys.length) throw new Error(`A query cannot mix operators and fields: ${keys.join(", ")}`);
	return keys.length > 0 && operators.length === keys.length;
}

function listOf(op: string, value: unknown): unknown[] {
	if (!Array.isArray(value)) throw new Error(`${op} takes a list`);
	return value;
}

function unsupported(op: string): Error {
	return new Error(`The query operator ${op} is not part of the store contract (shared/persistence/store.ts)`);
}
