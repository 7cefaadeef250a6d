import type { Readable, Writable } from "node:stream";
import type { BlobStore } from "./blobs";

/** The parts of the MongoDB 3.x driver (which ships no types) that GridFS storage uses. */
interface GridFSBucket {
	openUploadStreamWithId(id: string, filename: string): Writable;
	openDownloadStream(id: string): Readable;
	delete(id: string): Promise<void>;
}
interface MongoClient {
	db(): unknown;
	close(): Promise<void>;
}
interface MongoDriver {
	MongoClient: { connect(uri: string, options: object): Promise<MongoClient> };
	GridFSBucket: new (db: unknown, options: { bucketName: string }) => GridFSBucket;
}
// Loaded untyped, typed by MongoDriver above.
const { MongoClient, GridFSBucket } = require("mongodb") as MongoDriver;

/** Blobs in MongoDB's GridFS (bucket "media"), so every node of a distributed Plaza reads the same bytes. */
export class MongoBlobs implements BlobStore {
	private client?: MongoClient;
	private bucket?: GridFSBucket;

	constructor(private readonly uri: string) {}

	async open() {
		this.client = await MongoClient.connect(this.uri, { useUnifiedTopology: true });
		this.bucket = new GridFSBucket(this.client.db(), { bucketName: "media" });
	}

	async close() {
		await this.client?.close();
	}

	put(id: string, bytes: Buffer): Promise<void> {
		return new Promise((resolve, reject) => {
			const upload = this.ready().openUploadStreamWithId(id, id);
			upload.once("error", reject).once("finish", () => resolve());
			upload.end(bytes);
		});
	}

	get(id: string): Promise<Buffer | null> {
		return new Promise((resolve, reject) => {
			const chunks: Buffer[] = [];
			this.ready()
				.openDownloadStream(id)
				.on("data", (chunk: Buffer) => chunks.push(chunk))
				.once("error", (err: Error & { code?: string }) => (err.code === "ENOENT" || /FileNotFound/i.test(err.message) ? resolve(null) : reject(err)))
				.once("end", () => resolve(Buffer.concat(chunks)));
		});
	}

	async remove(id: string) {
		await this.ready()
			.delete(id)
			.catch((err: Error) => {
				if (!/FileNotFound|not found/i.test(err.message)) throw err;
			});
	}

	private ready(): GridFSBucket {
		if (!this.bucket) throw new Error("The GridFS blob store is not open");
		return this.bucket;
	}
}
