import { SqlDialect, SqlValue } from "../../shared/persistence/sql/database";

/**
 * Who reads posts, as the queries need it: private posts reach their author, recipients and recipient networks'
 * members, and admins.
 */
export interface Reader {
	userId?: string;
	admin: boolean;
	/** The networks the reader is a member of. */
	networks: string[];
	/** Whose posts and comments the reader never sees: users blocked either way (none for admins, who moderate). */
	hidden: readonly string[];
}

/** The parameters of a statement built in parts: each value bound once, its placeholder reused. */
export class Params {
	readonly values: SqlValue[] = [];

	private readonly named = new Map<string, string>();

	constructor(readonly dialect: SqlDialect) {}

	/** The placeholder of a new value. */
	add(value: SqlValue): string {
		this.values.push(value);
		return `$${this.values.length}`;
	}

	/** The placeholder of a value used in several parts of the statement, bound once under `name`. */
	shared(name: string, value: SqlValue): string {
		let placeholder = this.named.get(name);
		if (!placeholder) {
			placeholder = this.add(value);
			this.named.set(name, placeholder);
		}
		return placeholder;
	}

	/** A list bound once under `name`, for `column` being one of it. */
	anyOf(column: string, name: string, values: readonly string[]): string {
		return this.dialect.anyOf(column, this.shared(name, this.dialect.listParam(values)));
	}
}

/** The ids a private post may be addressed to and reach this reader through: themselves and their networks. */
export function reachOf(reader: Reader): string[] {
	return reader.userId ? [reader.userId, ...reader.networks] : reader.networks;
}

/**
 * "The post at `alias` is visible to the reader" (PRODUCT.md §3), decided in the query: public, or
 * written by the reader, or addressed to them or to one of their networks, and not by a user blocked
 * either way; everything for admins.
 */
export function visibleSql(reader: Reader, params: Params, alias = "p"): string {
	if (reader.admin) return "1 = 1";
	const author = reader.userId ? `${alias}.author_id = ${params.shared("me", reader.userId)} OR ` : "";
	const addressed = `EXISTS (SELECT 1 FROM post_recipients vr WHERE vr.post_id = ${alias}.id AND ${params.anyOf("vr.recipient_id", "reach", reachOf(reader))})`;
	const unblocked = notWrittenBySql(`${alias}.author_id`, reader.hidden, params);
	return `(${alias}.is_private = 0 OR ${author}${addressed})${unblocked ? ` AND ${unblocked}` : ""}`;
}

/**
 * "The row at `authorColumn` is by none of `authors`" (users the reader hides or mutes), or nothing to add when there
 * are none: most readers pay nothing for blocks.
 */
export function notWrittenBySql(
	authorColumn: string,
	authors: readonly string[],
	params: Params,
	name = "hidden",
): string | undefined {
	return authors.length ? `NOT ${params.anyOf(authorColumn, name, authors)}` : undefined;
}

/** Many rows in one statement: the `columns` of each of `rows`, numbered on. */
export function insertMany<T>(
	table: string,
	columns: string[],
	rows: T[],
	values: (row: T, index: number) => unknown[],
	onConflict: string,
	params: Params,
): string {
	const tuples = rows.map(
		(row, i) =>
			`(${values(row, i)
				.map(value => params.add(value as string))
				.join(", ")})`,
	);
	return `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${tuples.join(", ")}${onConflict}`;
}
