import { createHash } from "node:crypto";
import { IndexSpec } from "./store";
import { fieldExpr, quoteName } from "./postgres.sql";

/** A collection's table: the GUID and the rest of the document. "C" orders ids bytewise, as MongoDB does. */
export function tableDdl(table: string): string {
	return `CREATE TABLE IF NOT EXISTS ${quoteName(table)} (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL)`;
}

export interface IndexDdl {
	name: string;
	sql: string;
}

/**
 * The expression indexes of a declared field. A unique field gets a unique btree (a sparse one lets
 * any number of documents lack the field, since NULLs never collide). Any other field gets a btree
 * for order and ranges, and a GIN index for equality, membership (`Tags: "x"`) and `$in`, which the
 * query builder writes as jsonb containment because such a field may hold a list.
 */
export function indexDdl(table: string, spec: IndexSpec, nullsNotDistinct: boolean): IndexDdl[] {
	if (spec.field === "_id") return [];
	const on = `ON ${quoteName(table)}`;
	const e = `(${fieldExpr(spec.field)})`;
	if (spec.unique) {
		const name = indexName(table, spec.field, spec.sparse ? "unique_sparse" : "unique");
		const nulls = !spec.sparse && nullsNotDistinct ? " NULLS NOT DISTINCT" : "";
		return [{ name, sql: `CREATE UNIQUE INDEX IF NOT EXISTS ${quoteName(name)} ${on} (${e})${nulls}` }];
	}
	const order = indexName(table, spec.field, "btree");
	const match = indexName(table, spec.field, "gin");
	return [
		{ name: order, sql: `CREATE INDEX IF NOT EXISTS ${quoteName(order)} ${on} (${e} NULLS FIRST)` },
		{ name: match, sql: `CREATE INDEX IF NOT EXISTS ${quoteName(match)} ${on} USING gin (${e})` },
	];
}

/** `<table>_<field>_<kind>`; PostgreSQL cuts names at 63 bytes, so a longer one ends in a hash instead. */
export function indexName(table: string, field: string, kind: string): string {
	const name = `${table}_${field}_${kind}`;
	if (Buffer.byteLength(name) <= 63) return name;
	const hash = createHash("sha256").update(name).digest("hex").slice(0, 12);
	return `${Buffer.from(name).subarray(0, 40).toString("utf8").replace(/\uFFFD$/, "")}_${hash}`;
}
