import fs from "node:fs/promises";
import path from "node:path";
import { StoreConfig } from "../config";
import { PostgresBlobs } from "./blobs.postgres";
import { MongoBlobs } from "./blobs.mongo";
import { SqlDatabase } from "./sql/database";

/**
 * Bytes kept apart from the records that describe them (avatars, pictures): files on the embedded
 * store, a bytea table on PostgreSQL, memory in tests.
 */
export interface BlobStore {
	open(): Promise<void>;
	close(): Promise<void>;
	put(id: string, bytes: Buffer): Promise<void>;
	/** The bytes, or null when there are none under that id. */
	get(id: string): Promise<Buffer | null>;
	remove(id: string): Promise<void>;
}

/** The blob store beside a domain's records; on PostgreSQL it shares the domain's database `db`. */
export function createBlobStore(store: StoreConfig, db: SqlDatabase | undefined): BlobStore {
	switch (store.kind) {
		case "memory":
			return new MemoryBlobs();
		case "sqlite":
			return new FileBlobs(path.join(store.dir, "blobs"));
		case "mongo":
			return new MongoBlobs(store.uri);
		case "postgres":
			if (!db) throw new Error("PostgreSQL blobs need the domain's database");
			return new PostgresBlobs(db);
	}
}

class MemoryBlobs implements BlobStore {
	private readonly blobs = new Map<string, Buffer>();
	async open() {}
	async close() {}
	async put(id: string, bytes: Buffer) {
		this.blobs.set(id, Buffer.from(bytes));
	}
	async get(id: string) {
		return this.blobs.get(id) ?? null;
	}
	async remove(id: string) {
		this.blobs.delete(id);
	}
}

/** One file per blob; written to a temporary name, flushed, then renamed, so a reader never sees half a file. */
class FileBlobs implements BlobStore {
	constructor(private readonly dir: string) {}

	async open() {
		await fs.mkdir(this.dir, { recursive: true });
	}

	async close() {}

	async put(id: string, bytes: Buffer) {
		const temporary = `${this.file(id)}.${process.pid}.tmp`;
		const handle = await fs.open(temporary, "w");
		try {
			await handle.writeFile(bytes);
			await handle.sync();
		} finally {
			await handle.close();
		}
		await fs.rename(temporary, this.file(id));
	}

	async get(id: string) {
		return fs.readFile(this.file(id)).catch((err: NodeJS.ErrnoException) => {
			if (err.code === "ENOENT") return null;
			throw err;
		});
	}

	async remove(id: string) {
		await fs.rm(this.file(id), { force: true });
	}

	/** Ids are GUIDs (checked by the caller's schema); the guard keeps any other text out of the path. */
	private file(id: string): string {
		if (!/^[0-9a-f]{32}$/.test(id)) throw new Error(`Not a blob id: ${id}`);
		return path.join(this.dir, id);
	}
}
