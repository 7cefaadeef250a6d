import { randomBytes } from "node:crypto";
import { Client, escapeIdentifier } from "pg";

/**
 * The PostgreSQL server the tests make their databases on: this machine's (trust authentication)
 * unless PLAZA_TEST_POSTGRES_URL names another; PLAZA_TEST_POSTGRES=off skips the PostgreSQL tests.
 */
export const postgresServerUrl = process.env.PLAZA_TEST_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/test";
export const postgresTestsOn = process.env.PLAZA_TEST_POSTGRES !== "off";
/** The pool of a Plaza a test starts in its own process (jest.config.js sets DATABASE_POOL_SIZE for the children). */
export const testPoolSize = Number(process.env.DATABASE_POOL_SIZE) || undefined;

export interface TestDatabase {
	name: string;
	/** The connection string of this database. */
	url: string;
	create(): Promise<void>;
	/** Drops the database, ending the connections still open to it. */
	drop(): Promise<void>;
}

/** A database of one test run alone: named at once (so suites can be declared with its URL), made by create(). */
export function testDatabase(): TestDatabase {
	const name = `plaza_test_${Date.now()}_${randomBytes(4).toString("hex")}`;
	const url = new URL(postgresServerUrl);
	url.pathname = `/${name}`;
	return {
		name,
		url: url.toString(),
		// template0 takes no connections, so databases made side by side never find their template in use.
		create: () =>
			onServer(
				async client =>
					void (await client.query(`CREATE DATABASE ${escapeIdentifier(name)} TEMPLATE template0 ENCODING 'UTF8'`)),
			),
		drop: () =>
			onServer(
				async client => void (await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`)),
			),
	};
}

/** Ends every connection to a database but the caller's: what a restart of the server does to Plaza's pool. */
export function terminateConnections(database: string): Promise<number> {
	return onServer(async client => {
		const { rowCount } = await client.query(
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
			[database],
		);
		return rowCount ?? 0;
	});
}

/** Runs `work` on a connection of its own to the server's maintenance database, or to `database`. */
export async function onServer<T>(work: (client: Client) => Promise<T>, database?: string): Promise<T> {
	const url = new URL(postgresServerUrl);
	if (database) url.pathname = `/${database}`;
	const client = new Client({ connectionString: url.toString() });
	try {
		await client.connect();
	} catch (err) {
		throw new Error(
			`PostgreSQL at ${postgresServerUrl} is out of reach (${(err as Error).message}): start it, point PLAZA_TEST_POSTGRES_URL at one, or set PLAZA_TEST_POSTGRES=off`,
			{ cause: err },
		);
	}
	try {
		return await work(client);
	} finally {
		await client.end();
	}
}
