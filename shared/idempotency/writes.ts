import { AsyncLocalStorage } from "node:async_hooks";
import { isReadOnly, Row, SqlDatabase, SqlExecutor, SqlValue } from "../persistence/sql/database";
import { markCommitted } from "./keys.sql";

/** The claim a keyed write holds while its handler runs, as the handler's writes see it. */
export interface KeyedWrite {
	/** The database the claim is in: only writes there can commit it atomically (none on MongoDB). */
	db?: SqlDatabase;
	keyId: string;
	token: string;
	keepMs: number;
	/** Set once a write's transaction committed the mark: the claim can no longer be taken over. */
	marked: boolean;
	/** Cleared when the handler returns: work it started and left running is not the write. */
	active: boolean;
}

/**
 * Node 22 runs AsyncLocalStorage on promise hooks unless started with --experimental-async-context-frame (the
 * default from Node 24): once a keyed write had run, every await of the process cost about three times as much.
 */
export const contextFrameFlag = "--experimental-async-context-frame";

export function contextFrameMissing(): boolean {
	const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
	return Number(process.versions.node.split(".")[0]) < 24 && !given.includes(contextFrameFlag);
}

const current = new AsyncLocalStorage<KeyedWrite>();

/** Runs a handler with its claim in scope of every write it makes (see keyedWrites). */
export function underKey<T>(write: KeyedWrite, run: () => Promise<T>): Promise<T> {
	return current.run(write, run);
}

/**
 * A domain's database whose writes, made by a handler under an Idempotency-Key, mark the key's claim
 * committed in their own transaction: the write and the mark commit together or not at all, so a
 * retry finds a claim either committed (never run again) or with nothing done (safe to run again).
 * Single write statements run as transactions then.
 */
export function keyedWrites(db: SqlDatabase): SqlDatabase {
	const pending = () => {
		const write = current.getStore();
		return write && write.active && !write.marked && write.db === db ? write : undefined;
	};
	const transaction = <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
		const write = pending();
		if (!write) return db.transaction(work);
		return db
			.transaction(async tx => {
				await markCommitted(tx, write.keyId, write.token, Date.now() + write.keepMs);
				return work(tx);
			})
			.then(result => {
				write.marked = true;
				return result;
			});
	};
	const statement = <T>(sql: string, direct: () => Promise<T>, inTransaction: (tx: SqlExecutor) => Promise<T>) =>
		!pending() || isReadOnly(sql) ? direct() : transaction(inTransaction);
	return {
		dialect: db.dialect,
		all: <T extends object = Row>(sql: string, params?: readonly SqlValue[]) =>
			statement(
				sql,
				() => db.all<T>(sql, params),
				tx => tx.all<T>(sql, params),
			),
		get: <T extends object = Row>(sql: string, params?: readonly SqlValue[]) =>
			statement(
				sql,
				() => db.get<T>(sql, params),
				tx => tx.get<T>(sql, params),
			),
		run: (sql: string, params?: readonly SqlValue[]) =>
			statement(
				sql,
				() => db.run(sql, params),
				tx => tx.run(sql, params),
			),
		transaction,
		withSchemaLock: work => db.withSchemaLock(work),
		close: () => db.close(),
	};
}
