import { Logger } from "moleculer";
import { Pool } from "pg";

interface SharedPool {
	pool: Pool;
	users: number;
}

/** One pool per database and process: every collection's adapter shares it, so a process holds at most `max` connections. */
const pools = new Map<string, SharedPool>();

/**
 * The process's pool for a database URL. A pool outlives its connections: when the server restarts,
 * the broken idle connections are dropped (the error is logged, not thrown) and later queries open new ones.
 */
export function acquirePool(url: string, logger: Logger | undefined): Pool {
	let shared = pools.get(url);
	if (!shared) {
		const pool = new Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, keepAlive: true, application_name: "plaza" });
		pool.on("error", err => logger?.warn(`A PostgreSQL connection was lost; the next query opens another: ${err.message}`));
		shared = { pool, users: 0 };
		pools.set(url, shared);
	}
	shared.users += 1;
	return shared.pool;
}

/** Gives a pool back; the last adapter to give it back closes it. */
export async function releasePool(url: string): Promise<void> {
	const shared = pools.get(url);
	if (!shared || --shared.users > 0) return;
	pools.delete(url);
	await shared.pool.end();
}

/** Any lock key will do, as long as every Plaza process uses the same one ("plaza" in ASCII). */
const schemaLock = 0x706c617a61;

/**
 * Runs schema statements in one transaction under an advisory lock: `CREATE ... IF NOT EXISTS` is
 * not safe against itself, and several processes may start together.
 */
export async function changeSchema(pool: Pool, statements: string[]): Promise<void> {
	const client = await pool.connect();
	let broken = false;
	try {
		await client.query("BEGIN");
		await client.query("SELECT pg_advisory_xact_lock($1)", [schemaLock]);
		for (const sql of statements) await client.query(sql);
		await client.query("COMMIT");
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

/** Whether an error means the server is out of reach (down, restarting, connection cut) rather than the statement failed. */
export function isConnectionLoss(err: unknown): boolean {
	const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
	if (typeof code === "string" && (code.startsWith("08") || ["57P01", "57P02", "57P03", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(code))) return true;
	return typeof message === "string" && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
