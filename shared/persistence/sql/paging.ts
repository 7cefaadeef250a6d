import { failures } from "../../errors";
import { SqlExecutor, SqlValue } from "./database";

/**
 * A page as paged operations ask for it (PRODUCT.md §1): Offset/Limit, and the keyset cursor
 * `AfterId`, the Id of the last record of the previous page, which a client follows past deep
 * offsets at the cost of one page (Offset then counts from the cursor).
 */
export interface Page {
	Offset: number;
	Limit: number;
	AfterId?: string;
}

/** Where a list's order resumes: the (CreatedTime, Id) of the record a cursor names. */
export interface Anchor {
	time: number;
	id: string;
}

/**
 * The anchor of `page.AfterId`, read with `sql` (one row of `time` and `id` for the id at `$1`),
 * or undefined without a cursor; a cursor that names no record of the list is a 400 on AfterId.
 */
export async function anchorOf(
	db: SqlExecutor,
	page: Page,
	sql: string,
	params: unknown[] = [],
): Promise<Anchor | undefined> {
	if (!page.AfterId) return undefined;
	const row = await db.get<{ time: number; id: string }>(sql, [page.AfterId, ...(params as string[])]);
	if (!row) throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
	return { time: Number(row.time), id: row.id };
}

/**
 * The keyset condition "after the anchor" on (timeColumn, idColumn), the anchor bound at `$n` and
 * `$n+1`; `newestFirst` lists go down. Add it only when there is an anchor (two statements, not one
 * with an `IS NULL OR`), so that the engine seeks the index instead of walking it from the start.
 */
export function afterAnchor(timeColumn: string, idColumn: string, n: number, newestFirst = false): string {
	return `(${timeColumn}, ${idColumn}) ${newestFirst ? "<" : ">"} ($${n}, $${n + 1})`;
}

/** The values `afterAnchor` binds. */
export function anchorParams(anchor: Anchor): [number, string] {
	return [anchor.time, anchor.id];
}

/** A list of one table's rows that belong to one owner, oldest first, paged by Offset/Limit and AfterId. */
export interface OwnedList {
	table: string;
	/** What the statement selects (with the aliases records use). */
	columns: string;
	/** The column that names the owner. */
	owner: string;
	/** A further fixed condition on the rows, if any. */
	where?: string;
	/** The order, oldest first: a time column, then a unique column among the owner's rows. */
	time: string;
	tiebreak: string;
	/** The column AfterId names (the tiebreak unless the list's records are known by another). */
	cursor?: string;
	/** Rows whose `column` is one of `values` are left out (a reader's blocked users' comments). */
	excluded?: { column: string; values: readonly string[] };
}

/**
 * A page of an owner's list: LIMIT/OFFSET in the query and, with a cursor, a seek of the index on
 * (owner, time, tiebreak) past the record it names. Every "a user's connections", "a post's
 * comments"… list is this statement.
 */
export async function pageOf<T extends object>(
	db: SqlExecutor,
	list: OwnedList,
	ownerId: string,
	page: Page,
): Promise<T[]> {
	if (page.Limit === 0) return [];
	const fixed = list.where ? ` AND ${list.where}` : "";
	const anchor = await anchorOf(
		db,
		page,
		`SELECT ${list.time} AS time, ${list.tiebreak} AS id FROM ${list.table} WHERE ${list.cursor ?? list.tiebreak} = $1 AND ${list.owner} = $2${fixed}`,
		[ownerId],
	);
	const after = anchor ? ` AND ${afterAnchor(list.time, list.tiebreak, 4)}` : "";
	const values: SqlValue[] = [ownerId, page.Limit, page.Offset, ...(anchor ? anchorParams(anchor) : [])];
	const excluded = list.excluded?.values.length
		? ` AND NOT ${db.dialect.anyOf(list.excluded.column, `$${values.push(db.dialect.listParam(list.excluded.values))}`)}`
		: "";
	return db.all<T>(
		`SELECT ${list.columns} FROM ${list.table} WHERE ${list.owner} = $1${fixed}${after}${excluded} ORDER BY ${list.time}, ${list.tiebreak} LIMIT $2 OFFSET $3`,
		values,
	);
}
