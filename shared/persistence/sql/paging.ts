import { failures } from "../../errors";
import { SqlExecutor } from "./database";

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
export async function anchorOf(db: SqlExecutor, page: Page, sql: string, params: unknown[] = []): Promise<Anchor | undefined> {
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
