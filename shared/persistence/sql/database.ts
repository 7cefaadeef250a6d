/**
 * The one seam between Plaza's repositories and a SQL engine: SQLite (node:sqlite) and PostgreSQL (pg) run the same
 * statements, in the subset both share (`$1` placeholders, lower-case unquoted names, `INSERT … ON CONFLICT … DO
 * NOTHING|UPDATE`, `RETURNING`, window functions, partial indexes). Values: strings, numbers (timestamps: epoch ms in
 * BIGINT), booleans (0/1 in INTEGER), null, and lists only through `anyOf`. What differs goes through `SqlDialect`.
 */

export type SqlValue = string | number | boolean | null | undefined | Buffer | readonly string[];

/** A row as the engine returns it: columns by name. */
export type Row = Record<string, unknown>;

/** Whether a statement only reads (a SELECT); anything else is a write, run and announced as one. */
export const isReadOnly = (sql: string) => /^\s*SELECT\b/i.test(sql);

export interface SqlExecutor {
	readonly dialect: SqlDialect;
	/** Every row the statement returns. */
	all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
	/** The first row, or undefined. */
	get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
	/** Runs a statement; the number of rows it changed. */
	run(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

export interface SqlDatabase extends SqlExecutor {
	/**
	 * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Inside
	 * it, use only the executor it is given; nothing else of this database runs meanwhile on SQLite,
	 * and on PostgreSQL the executor holds a connection of its own.
	 */
	transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
	/** Holds the schema lock of the whole database (every process) while `work` runs, in a transaction. */
	withSchemaLock<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
	close(): Promise<void>;
}

/** What the two dialects write differently. */
export interface SqlDialect {
	readonly name: "sqlite" | "postgres";
	/**
	 * A condition "`column` is one of the list bound at `placeholder`", for a list given as
	 * `listParam(values)`: `= ANY($n)` on PostgreSQL, `IN (SELECT value FROM json_each($n))` on SQLite.
	 */
	anyOf(column: string, placeholder: string): string;
	/** The bound value of a list for `anyOf`. */
	listParam(values: readonly string[]): SqlValue;
	/** The column type of raw bytes. */
	readonly bytes: string;
}

/** Whether an error is a unique-key (or primary-key) violation, on either engine. */
export function isUniqueViolation(err: unknown): boolean {
	const { code, errcode } = (err ?? {}) as { code?: unknown; errcode?: unknown };
	// PostgreSQL: 23505 unique_violation. SQLite: SQLITE_CONSTRAINT_UNIQUE (2067), SQLITE_CONSTRAINT_PRIMARYKEY (1555).
	return code === "23505" || errcode === 2067 || errcode === 1555;
}
