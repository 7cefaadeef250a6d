import { Pool, PoolClient, types } from "pg";
import { failures } from "../../errors";
import { isReadOnly, Row, SqlDatabase, SqlDialect, SqlExecutor, SqlValue } from "./database";

const dialect: SqlDialect = {
	name: "postgres",
	anyOf: (column, placeholder) => `${column} = ANY(${placeholder}::text[])`,
	listParam: values => values,
	bytes: "BYTEA",
};

/** BIGINT (timestamps, counts) as numbers: Plaza's stay far below 2^53. */
const typeParsers = {
	getTypeParser: ((oid: number, format?: "text" | "binary") =>
		oid === 20
			? Number
			: (types.getTypeParser(oid, format ?? "text") as (value: string) => unknown)) as typeof types.getTypeParser,
};

function bind(params: readonly SqlValue[]): unknown[] {
	return params.map(value => (typeof value === "boolean" ? (value ? 1 : 0) : (value ?? null)));
}

/** Any lock key will do, as long as every Plaza process uses the same one ("plaza" in ASCII). */
const schemaLock = 0x706c617a61;

/**
 * What a client is told of an engine error it can act on: a server out of reach, or one that takes
 * no more connections (53300: its max_connections, or the database's limit, reached), is a 503 (the
 * pool reconnects by itself); text PostgreSQL cannot store (U+0000) is a 400; anything else stays an
 * internal error.
 */
function translated(err: unknown): unknown {
	const code = (err as { code?: unknown }).code;
	if (isConnectionLoss(err) || code === "53300") return failures.serviceUnavailable();
	if (code === "22021" || code === "22P05") return failures.invalidBody("Text may not hold the character U+0000");
	return err;
}

/**
 * Connections a pool holds unless DATABASE_POOL_SIZE says otherwise (unset or 0); processes × the size must stay under
 * the server's max_connections.
 */
const defaultPoolSize = 10;

/**
 * Runs `attempt` again, on another connection, while its connection turns out lost (the pool drops
 * a broken one): only for what cannot have run on the server — a read, or a transaction's BEGIN.
 */
async function onLiveConnection<T>(pool: Pool, attempt: () => Promise<T>): Promise<T> {
	// After a cut (a server restart), at most the pool's size of idle connections are found broken one by one.
	for (let tries = 1; ; tries++) {
		try {
			return await attempt();
		} catch (err) {
			if (!isConnectionLoss(err) || tries > pool.options.max) throw err;
		}
	}
}

function executor(client: Pool | PoolClient): SqlExecutor {
	// Through the pool, a read whose connection was found cut is tried on another: served again at once after a restart.
	const send = (sql: string, params: readonly SqlValue[]) =>
		client instanceof Pool && isReadOnly(sql)
			? onLiveConnection(client, () => client.query(sql, bind(params)))
			: client.query(sql, bind(params));
	const query = (sql: string, params: readonly SqlValue[]) =>
		send(sql, params).catch(err => Promise.reject(translated(err)));
	return {
		dialect,
		all: async <T extends object>(sql: string, params: readonly SqlValue[] = []) =>
			(await query(sql, params)).rows as T[],
		get: async <T extends object>(sql: string, params: readonly SqlValue[] = []) =>
			(await query(sql, params)).rows[0] as T | undefined,
		run: async (sql: string, params: readonly SqlValue[] = []) => (await query(sql, params)).rowCount ?? 0,
	};
}

/**
 * The distributed engine: a pool of connections to one PostgreSQL database, shared by every
 * service of the process that uses it. When the server restarts, broken idle connections are
 * dropped (logged, not thrown) and later statements open new ones.
 */
export class PostgresDatabase implements SqlDatabase {
	readonly dialect = dialect;

	private readonly pool: Pool;

	private readonly pooled: SqlExecutor;

	constructor(url: string, onConnectionLost: (message: string) => void = () => undefined, poolSize = defaultPoolSize) {
		this.pool = new Pool({
			connectionString: url,
			max: poolSize,
			connectionTimeoutMillis: 5000,
			keepAlive: true,
			application_name: "plaza",
			types: typeParsers,
		});
		this.pool.on("error", err => onConnectionLost(err.message));
		this.pooled = executor(this.pool);
	}

	all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
		return this.pooled.all<T>(sql, params);
	}

	get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
		return this.pooled.get<T>(sql, params);
	}

	run(sql: string, params?: readonly SqlValue[]): Promise<number> {
		return this.pooled.run(sql, params);
	}

	async transaction<T>(
		work: (tx: SqlExecutor) => Promise<T>,
		beforeWork?: (tx: SqlExecutor) => Promise<void>,
	): Promise<T> {
		const client = await onLiveConnection(this.pool, () => this.begun()).catch(err => Promise.reject(translated(err)));
		let broken = false;
		try {
			const tx = executor(client);
			await beforeWork?.(tx);
			const result = await work(tx);
			await client.query("COMMIT");
			return result;
		} catch (err) {
			broken = await client.query("ROLLBACK").then(
				() => false,
				() => true,
			);
			throw err;
		} finally {
			client.release(broken);
		}
	}

	/** A connection with a transaction begun; one found cut is dropped from the pool. */
	private async begun(): Promise<PoolClient> {
		const client = await this.pool.connect();
		try {
			await client.query("BEGIN");
			return client;
		} catch (err) {
			client.release(true);
			throw err;
		}
	}

	/** An advisory lock held to the end of the transaction: several processes may start together. */
	withSchemaLock<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
		return this.transaction(work, async tx => void (await tx.get("SELECT pg_advisory_xact_lock($1)", [schemaLock])));
	}

	async close(): Promise<void> {
		await this.pool.end();
	}
}

/**
 * Whether an error means the server is out of reach (down, restarting, connection cut) rather than the statement
 * failed.
 */
export function isConnectionLoss(err: unknown): boolean {
	const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
	if (
		typeof code === "string" &&
		(code.startsWith("08") ||
			["57P01", "57P02", "57P03", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(code))
	)
		return true;
	return (
		typeof message === "string" &&
		/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
			message,
		)
	);
}
