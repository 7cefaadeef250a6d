import type { BlobStore } from "./blobs";
import { SqlDatabase } from "./sql/database";

/**
 * The blob table, made by the migrations of the domain that keeps blobs (media). IF NOT EXISTS:
 * a database written before migrations existed has it already, with its bytes.
 */
export const postgresBlobTable = ["CREATE TABLE IF NOT EXISTS plaza_blobs (id TEXT PRIMARY KEY, data BYTEA NOT NULL)"];

/** Blobs in a bytea table of the same PostgreSQL database, through the domain's database (its pool). */
export class PostgresBlobs implements BlobStore {
	constructor(private readonly db: SqlDatabase) {}

	/** The table is the migrations' to make, and the pool the domain's to close. */
	async open() {}

	async close() {}

	async put(id: string, bytes: Buffer) {
		await this.db.run(
			"INSERT INTO plaza_blobs (id, data) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data",
			[id, bytes],
		);
	}

	async get(id: string) {
		const row = await this.db.get<{ data: Buffer }>("SELECT data FROM plaza_blobs WHERE id = $1", [id]);
		return row?.data ?? null;
	}

	async remove(id: string) {
		await this.db.run("DELETE FROM plaza_blobs WHERE id = $1", [id]);
	}
}
