import { Pool } from "pg";
import { Logger } from "moleculer";
import type { BlobStore } from "./blobs";
import { acquirePool, changeSchema, releasePool } from "./postgres.pool";

/** Blobs in a bytea table of the same PostgreSQL database, on the process's shared pool. */
export class PostgresBlobs implements BlobStore {
	private pool?: Pool;

	constructor(
		private readonly url: string,
		private readonly logger: Logger,
	) {}

	async open() {
		this.pool = acquirePool(this.url, this.logger);
		await changeSchema(this.pool, ["CREATE TABLE IF NOT EXISTS plaza_blobs (id text PRIMARY KEY, data bytea NOT NULL)"]);
	}

	async close() {
		if (this.pool) await releasePool(this.url);
	}

	async put(id: string, bytes: Buffer) {
		await this.ready().query("INSERT INTO plaza_blobs (id, data) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data", [id, bytes]);
	}

	async get(id: string) {
		const { rows } = await this.ready().query<{ data: Buffer }>("SELECT data FROM plaza_blobs WHERE id = $1", [id]);
		return rows[0]?.data ?? null;
	}

	async remove(id: string) {
		await this.ready().query("DELETE FROM plaza_blobs WHERE id = $1", [id]);
	}

	private ready(): Pool {
		if (!this.pool) throw new Error("The PostgreSQL blob store is not open");
		return this.pool;
	}
}
