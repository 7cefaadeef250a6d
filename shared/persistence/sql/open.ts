import path from "node:path";
import { StoreConfig } from "../../config";
import { SqlDatabase } from "./database";
import { PostgresDatabase } from "./postgres";
import { SqliteDatabase } from "./sqlite";

interface Shared {
	db: SqlDatabase;
	users: number;
}

/** One PostgreSQL pool per URL and process: every domain of the process shares it (at most 10 connections). */
const pools = new Map<string, Shared>();

/**
 * The database a domain keeps its records in: its own SQLite file under DATA_DIR (`<domain>.sqlite`),
 * an in-memory SQLite database, or the deployment's PostgreSQL database. Give it back with `closeDatabase`.
 */
export function openDatabase(
	store: StoreConfig,
	domain: string,
	log: (message: string) => void = () => undefined,
): SqlDatabase {
	switch (store.kind) {
		case "memory":
			return new SqliteDatabase(undefined);
		case "sqlite":
			return new SqliteDatabase(path.join(store.dir, `${domain}.sqlite`));
		case "postgres": {
			let shared = pools.get(store.url);
			if (!shared) {
				shared = {
					db: new PostgresDatabase(
						store.url,
						message => log(`A PostgreSQL connection was lost; the next statement opens another: ${message}`),
						store.poolSize,
					),
					users: 0,
				};
				pools.set(store.url, shared);
			}
			shared.users += 1;
			return shared.db;
		}
		case "mongo":
			throw new Error("MONGO_URI: a MongoDB store is opened by repositoryMixin, not as a SQL database");
	}
}

/** Gives a database back; the last domain to give back a PostgreSQL pool closes it. */
export async function closeDatabase(store: StoreConfig, db: SqlDatabase): Promise<void> {
	if (store.kind !== "postgres") return db.close();
	const shared = pools.get(store.url);
	if (!shared || --shared.users > 0) return;
	pools.delete(store.url);
	await shared.db.close();
}
