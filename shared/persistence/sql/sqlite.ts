import fs from "node:fs";
import path from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { Row, SqlDatabase, SqlDialect, SqlExecutor, SqlValue } from "./database";

const dialect: SqlDialect = {
	name: "sqlite",
	anyOf: (column, placeholder) => `${column} IN (SELECT value FROM json_each(${placeholder}))`,
	listParam: values => JSON.stringify(values),
	bytes: "BLOB",
};

/** `$1` → `?1`: SQLite numbers its parameters with `?NNN` and binds them in order. */
const toSqlite = (sql: string) => sql.replace(/\$(\d+)/g, "?$1");

/** Transactions a bulk load commits at once. */
const batchSize = 2000;

type Bound = string | number | null | Uint8Array;

/** Address space a database file may be mapped into (per file; pages are touched only as read). */
const mmapBytes = 128 * 1024 * 1024;

/** A prepared statement that returns rows as arrays, and the maker of its row objects. */
interface Prepared {
	statement: StatementSync;
	row: (values: unknown[]) => Row;
}

/**
 * Rows as plain objects, built here from arrays: node:sqlite makes a null-prototype object per row
 * property by property, about 2.5× slower than arrays and objects of one shape made in JavaScript
 * (500 rows: 500 µs against 200 µs).
 */
function rowMaker(columns: string[]): (values: unknown[]) => Row {
	return values => {
		const row: Row = {};
		for (let i = 0; i < columns.length; i++) row[columns[i]] = values[i] as Row[string];
		return row;
	};
}

function bind(params: readonly SqlValue[]): Bound[] {
	return params.map(value => {
		if (value === undefined || value === null) return null;
		if (typeof value === "boolean") return value ? 1 : 0;
		if (Array.isArray(value)) return JSON.stringify(value);
		return value as Bound;
	});
}

/** node:sqlite is still marked experimental in Node 22: its one warning says nothing an operator can act on. */
function loadSqlite(): typeof import("node:sqlite") {
	const emitWarning = process.emitWarning;
	process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
		if (String(warning).includes("SQLite is an experimental feature")) return;
		(emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
	}) as typeof process.emitWarning;
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require("node:sqlite") as typeof import("node:sqlite");
}

const sqlite = loadSqlite();

/**
 * The embedded engine: one SQLite file (WAL journal) per domain under DATA_DIR, or memory only.
 * node:sqlite is synchronous and a statement takes microseconds, so one connection serves the
 * process; a transaction holds it alone, and other statements wait for it to end.
 */
export class SqliteDatabase implements SqlDatabase {
	readonly dialect = dialect;

	private readonly db: DatabaseSync;

	private readonly statements = new Map<string, Prepared>();

	/** Set while a transaction is open: other statements wait for it. */
	private current: Promise<unknown> | undefined;

	private readonly direct: SqlExecutor = {
		dialect,
		all: async <T extends object>(sql: string, params: readonly SqlValue[] = []) => {
			const { statement, row } = this.statement(sql);
			return (statement.all(...bind(params)) as unknown as unknown[][]).map(row) as T[];
		},
		get: async <T extends object>(sql: string, params: readonly SqlValue[] = []) => {
			const { statement, row } = this.statement(sql);
			const values = statement.get(...bind(params)) as unknown as unknown[] | undefined;
			return values && (row(values) as T);
		},
		run: async (sql: string, params: readonly SqlValue[] = []) => Number(this.statement(sql).statement.run(...bind(params)).changes),
	};

	/**
	 * `file` undefined: in memory. `bulkLoad` (the seed) gives up durability for speed: a load cut
	 * off is simply run again.
	 */
	private readonly bulkLoad: boolean;

	private batched = 0;

	constructor(file: string | undefined, options: { bulkLoad?: boolean } = {}) {
		this.bulkLoad = options.bulkLoad ?? false;
		if (file) fs.mkdirSync(path.dirname(file), { recursive: true });
		this.db = new sqlite.DatabaseSync(file ?? ":memory:");
		// WAL: readers never wait for the writer. synchronous=FULL: a write acknowledged to a client
		// is on disk (WAL fsync at every commit), so neither a crash nor a power cut loses it.
		// mmap: pages are read in place rather than copied into SQLite's cache (reads of many rows about 1.5× faster here).
		this.db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -32000; PRAGMA mmap_size = ${mmapBytes}`);
		if (options.bulkLoad) this.db.exec("PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY");
	}

	async all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
		await this.idle();
		return this.direct.all<T>(sql, params);
	}

	async get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
		await this.idle();
		return this.direct.get<T>(sql, params);
	}

	async run(sql: string, params?: readonly SqlValue[]): Promise<number> {
		await this.idle();
		return this.direct.run(sql, params);
	}

	async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
		for (;;) {
			await this.idle();
			if (!this.current) break;
		}
		const running = this.bulkLoad ? this.inBatch(work) : this.alone(work);
		this.current = running;
		try {
			return await running;
		} finally {
			this.current = undefined;
		}
	}

	private async alone<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
		this.db.exec("BEGIN IMMEDIATE");
		try {
			const result = await work(this.direct);
			this.db.exec("COMMIT");
			return result;
		} catch (err) {
			if (this.db.isTransaction) this.db.exec("ROLLBACK");
			throw err;
		}
	}

	/**
	 * A bulk load's transaction: a savepoint inside one long transaction committed every
	 * `batchSize` transactions (and at close), so that a commit is not paid per record.
	 */
	private async inBatch<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
		if (!this.db.isTransaction) this.db.exec("BEGIN IMMEDIATE");
		this.db.exec("SAVEPOINT bulk");
		try {
			const result = await work(this.direct);
			this.db.exec("RELEASE bulk");
			if (++this.batched >= batchSize) this.commitBatch();
			return result;
		} catch (err) {
			this.db.exec("ROLLBACK TO bulk");
			this.db.exec("RELEASE bulk");
			throw err;
		}
	}

	private commitBatch(): void {
		if (this.db.isTransaction) this.db.exec("COMMIT");
		this.batched = 0;
	}

	/** One process holds a SQLite file: BEGIN IMMEDIATE already excludes every other writer. */
	withSchemaLock<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
		return this.transaction(work);
	}

	async close(): Promise<void> {
		await this.idle();
		if (this.bulkLoad && this.db.isOpen) this.commitBatch();
		if (this.db.isOpen) this.db.close();
	}

	/** Waits until no transaction is open. */
	private async idle(): Promise<void> {
		while (this.current) await this.current.catch(() => undefined);
	}

	private statement(sql: string): Prepared {
		let prepared = this.statements.get(sql);
		if (!prepared) {
			const statement = this.db.prepare(toSqlite(sql));
			statement.setReturnArrays(true);
			prepared = { statement, row: rowMaker(statement.columns().map(c => c.name)) };
			this.statements.set(sql, prepared);
		}
		return prepared;
	}
}
