import fs from "node:fs";
import path from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isReadOnly, Row, SqlDatabase, SqlDialect, SqlExecutor, SqlValue } from "./database";
import { LRUCache } from "lru-cache";
import { WalFiles } from "./wal-sync";
import { LogDurability } from "./log-durability";

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

/** Log size past which the log is copied into the database file and emptied (SQLite's default: 1,000 pages). */
const checkpointBytes = 4 * 1024 * 1024;

/** Transactions committed together (see openGroup). */
interface Group {
	/** Settles once the group's COMMIT has run, whether it succeeded or not (never rejects). */
	written: Promise<void>;
	/** Settles once the group's COMMIT is durable, or with why it is not. */
	committed: Promise<void>;
	settle(err?: unknown): void;
}

/** A prepared statement that returns rows as arrays, and the maker of its row objects. */
interface Prepared {
	statement: StatementSync;
	row: (values: unknown[]) => Row;
}

/**
 * Rows as plain objects built here from arrays: node:sqlite builds a null-prototype object per row property by
 * property, which is slower (docs/decisions/0001-sqlite-over-nedb.md).
 */
function rowMaker(columns: string[]): (values: unknown[]) => Row {
	return values => {
		const row: Row = {};
		for (let i = 0; i < columns.length; i++) row[columns[i]] = values[i];
		return row;
	};
}

/** A row as a statement set to return arrays gives it (node:sqlite's typings know only objects). */
function valuesOf(row: unknown): unknown[] {
	if (!Array.isArray(row)) throw new Error("Expected a row as an array: the statement was not set to return arrays");
	return row;
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
	const emitWarning = process.emitWarning.bind(process);
	process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
		if (String(warning).includes("SQLite is an experimental feature")) return;
		(emitWarning as (...args: unknown[]) => void)(warning, ...rest);
	};
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the warning filter above is in place
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

	/**
	 * Prepared statements by SQL text. Bounded: a feed's or a search's text depends on how many parts
	 * it unites (people followed, tags asked) and its page size, so the texts seen grow with use; a
	 * statement dropped here is finalized when collected.
	 */
	private readonly statements = new LRUCache<string, Prepared>({ max: 2000 });

	/** Set while a transaction runs: other transactions wait for it. */
	private current: Promise<unknown> | undefined;

	/** The transactions run since the last commit, held in one open SQLite transaction. */
	private group: Group | undefined;

	/** Which commits are on disk: writes are answered, and reads' answers given, only once what they wrote or saw is. */
	private readonly log: LogDurability;

	/** Set once the log has grown past checkpointBytes: the next transaction checkpoints first. */
	private checkpointDue = false;

	/** Set while a checkpoint runs: writes wait (the log must not be reused before the database file is durable). */
	private checkpointing: Promise<void> | undefined;

	/** A failed fsync: what was committed may not be on disk, so nothing more is read or written. */
	private broken: Error | undefined;

	/** The files' fsyncs, done off the event loop; undefined in memory and for a bulk load. */
	private readonly files: WalFiles | undefined;

	private readonly direct: SqlExecutor = {
		dialect,
		all: async <T extends object>(sql: string, params: readonly SqlValue[] = []) => {
			const { statement, row } = this.statement(sql);
			return statement.all(...bind(params)).map(values => row(valuesOf(values))) as T[];
		},
		get: async <T extends object>(sql: string, params: readonly SqlValue[] = []) => {
			const { statement, row } = this.statement(sql);
			const values = statement.get(...bind(params));
			return values && (row(valuesOf(values)) as T);
		},
		run: async (sql: string, params: readonly SqlValue[] = []) =>
			Number(this.statement(sql).statement.run(...bind(params)).changes),
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
		// WAL: readers never wait for the writer. synchronous=OFF with our own fsync after every group (see
		// commitGroup), so that an acknowledged write survives a crash or power cut; no automatic checkpoint, which at
		// synchronous=OFF would reuse the log before the database file is on disk (see checkpoint). mmap reads pages in
		// place; temp_store in memory keeps each transaction's savepoint undo pages out of a temporary file.
		this.db.exec(
			`PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA wal_autocheckpoint = 0; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -32000; PRAGMA mmap_size = ${mmapBytes}; PRAGMA temp_store = MEMORY`,
		);
		if (options.bulkLoad) this.db.exec("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY");
		const files = file && !options.bulkLoad ? new WalFiles(file) : undefined;
		this.files = files;
		this.log = new LogDurability(
			files && (() => files.syncLog()),
			err =>
				(this.broken = new Error(
					`the embedded store could not make its writes durable and must be restarted: ${(err as Error).message}`,
				)),
			() => {
				// Not while one runs: it copies this log, and one asked for now would find it empty.
				if (files && !this.checkpointing && files.logBytes() > checkpointBytes) this.checkpointDue = true;
			},
		);
	}

	async all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
		// What is a write is read from the SQL text (docs/architecture.md, Recognising a write from its SQL text).
		if (!isReadOnly(sql)) return this.transaction(tx => tx.all<T>(sql, params));
		return this.read(() => this.direct.all<T>(sql, params));
	}

	async get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
		if (!isReadOnly(sql)) return this.transaction(tx => tx.get<T>(sql, params));
		return this.read(() => this.direct.get<T>(sql, params));
	}

	/** A read: run once no transaction is open, answered once every commit it may have seen is on disk. */
	private async read<R>(query: () => Promise<R>): Promise<R> {
		await this.readable();
		// Read now (node:sqlite is synchronous), then wait for every commit written so far: what the read saw.
		const [result] = await Promise.all([query(), this.log.durableAt()]);
		return result;
	}

	async run(sql: string, params?: readonly SqlValue[]): Promise<number> {
		return this.transaction(tx => tx.run(sql, params));
	}

	/**
	 * Runs `work` alone (other transactions wait for it) inside a savepoint of the open group, and
	 * answers once the group is committed (on disk): a failed `work` undoes only its own writes.
	 */
	async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
		for (;;) {
			const busy = this.current ?? this.checkpointing;
			if (busy) await busy.catch(() => undefined);
			else if (this.checkpointDue && !this.group && this.files) this.startCheckpoint(this.files);
			else break;
		}
		if (this.broken) throw this.broken;
		const group = this.bulkLoad ? this.bulkGroup() : this.openGroup();
		const running = this.inSavepoint(work, group);
		this.current = running;
		let result: T;
		try {
			result = await running;
		} finally {
			this.current = undefined;
		}
		if (this.bulkLoad) {
			if (++this.batched >= batchSize) this.commitBatch();
			return result;
		}
		await group.committed;
		return result;
	}

	/**
	 * The group of transactions to be committed together, opened by the first one and committed on
	 * the next turn of the event loop: each one's writes are undone alone when it fails, and every
	 * one is answered after the one COMMIT and the log's next fsync (off the event loop, see
	 * LogDurability). Writes are durable when answered, and a busy server pays one fsync per group.
	 */
	private openGroup(): Group {
		if (this.group) return this.group;
		this.db.exec("BEGIN IMMEDIATE");
		let settle!: (err?: unknown) => void;
		let written!: () => void;
		const committed = new Promise<void>(
			// eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on the error COMMIT or fsync threw, as it came
			(resolve, reject) => (settle = err => (written(), err === undefined ? resolve() : reject(err))),
		);
		committed.catch(() => undefined);
		const group: Group = { written: new Promise<void>(resolve => (written = resolve)), committed, settle };
		this.group = group;
		setImmediate(() => this.commitGroup(group));
		return group;
	}

	private commitGroup(group: Group): void {
		if (this.current) {
			// A member is still running (awaiting something of its own): commit after it.
			const again = () => void setImmediate(() => this.commitGroup(group));
			this.current.then(again, again);
			return;
		}
		if (this.group !== group) return;
		this.group = undefined;
		try {
			this.db.exec("COMMIT");
		} catch (err) {
			if (this.db.isTransaction) this.db.exec("ROLLBACK");
			group.settle(err);
			return;
		}
		this.log.durableAt(this.log.committed()).then(
			() => group.settle(),
			(err: unknown) => group.settle(err),
		);
	}

	/** Runs a checkpoint, during which writes wait (see checkpoint). */
	private startCheckpoint(files: WalFiles): void {
		this.checkpointDue = false;
		const checkpointing: Promise<void> = this.checkpoint(files).then(() => {
			if (this.checkpointing === checkpointing) this.checkpointing = undefined;
		});
		this.checkpointing = checkpointing;
	}

	/**
	 * Copies the log into the database file, makes that file durable, and only then empties the log:
	 * a power cut at any step leaves a log that still holds every page the file may lack. Reads go on
	 * meanwhile; writes wait, since SQLite would reuse a fully copied log at the next commit.
	 */
	private async checkpoint(files: WalFiles): Promise<void> {
		try {
			// Only durable commits may be copied: a page of one the log could still lose must not reach the database file.
			await this.log.durableAt();
			const [busy, logged, copied] = Object.values(
				this.db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() ?? {},
			) as number[];
			// Another connection still reads old pages: the log stays whole, to be copied next time.
			if (busy || copied < logged) return;
			await files.syncDatabase();
			// Nothing is left to copy; were there anything (another connection's commit), FULL would fsync it first.
			this.db.exec("PRAGMA synchronous = FULL; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA synchronous = OFF");
		} catch (err) {
			this.broken ??= new Error(
				`the embedded store could not make its database file durable and must be restarted: ${(err as Error).message}`,
			);
		}
	}

	/** A bulk load's group: one long transaction committed every `batchSize` transactions (and at close). */
	private bulkGroup(): Group {
		if (!this.db.isTransaction) this.db.exec("BEGIN IMMEDIATE");
		return { written: Promise.resolve(), committed: Promise.resolve(), settle: () => undefined };
	}

	private async inSavepoint<T>(work: (tx: SqlExecutor) => Promise<T>, group: Group): Promise<T> {
		this.db.exec("SAVEPOINT tx");
		try {
			const result = await work(this.direct);
			this.db.exec("RELEASE tx");
			return result;
		} catch (err) {
			if (this.db.isTransaction) {
				this.db.exec("ROLLBACK TO tx");
				this.db.exec("RELEASE tx");
			} else if (this.group === group) {
				// SQLite ended the whole transaction (an I/O error, a full disk): the group's other writes are gone too.
				this.group = undefined;
				group.settle(err);
			}
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
		await this.readable().catch(() => undefined);
		await this.log.durableAt().catch(() => undefined);
		while (this.checkpointing) await this.checkpointing;
		if (this.bulkLoad && this.db.isOpen) this.commitBatch();
		// SQLite copies the log into the database file and deletes it at close: FULL makes it fsync the file first.
		if (this.db.isOpen && !this.bulkLoad && !this.broken) this.db.exec("PRAGMA synchronous = FULL");
		if (this.db.isOpen) this.db.close();
		this.files?.close();
	}

	/** Waits until no transaction is open, so that a read sees only committed rows (it waits for their fsync after). */
	private async readable(): Promise<void> {
		for (;;) {
			if (this.current) await this.current.catch(() => undefined);
			else if (this.group) await this.group.written;
			else if (this.broken) throw this.broken;
			else return;
		}
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
