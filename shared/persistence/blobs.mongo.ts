import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Collection, Db, Document, GridFSBucket, GridFSFile } from "mongodb";
import type { BlobStore } from "./blobs";
import { closeMongo, openMongo } from "./mongo/store";

/** The GridFS bucket of the blobs: collections media_blobs.files and media_blobs.chunks. */
export const mongoBlobBucket = "media_blobs";

/** Versions of a blob, newest first; a version is a GridFS file whose filename is the blob's id. */
const newestFirst = { uploadDate: -1, _id: -1 } as const;

/**
 * Blobs in GridFS, in MONGO_URI's database. GridFS has no replace: `put` writes a new version (its file document last,
 * so that no reader sees half of it), then drops the older ones, which a crash leaves until the id's next `put` or
 * `remove`; `get` reads the newest. Takes its own share of the process's client (`openMongo`), given back on `close`.
 */
export class MongoBlobs implements BlobStore {
	private opened?: { bucket: GridFSBucket; files: Collection<GridFSFile>; chunks: Collection<Document> };

	constructor(private readonly uri: string) {}

	async open() {
		if (!this.opened) this.opened = bucketOf(openMongo(this.uri));
	}

	async close() {
		if (!this.opened) return;
		this.opened = undefined;
		await closeMongo(this.uri);
	}

	async put(id: string, bytes: Buffer) {
		const upload = this.gridfs().bucket.openUploadStream(id);
		await pipeline(Readable.from([bytes]), upload);
		const written = upload.gridFSFile;
		if (!written) throw new Error(`The blob ${id} was not written`);
		// Only the versions before this one: of two puts at once, the later stays whichever finishes first.
		await this.drop({
			filename: id,
			$or: [{ uploadDate: { $lt: written.uploadDate } }, { uploadDate: written.uploadDate, _id: { $lt: written._id } }],
		});
	}

	async get(id: string) {
		const { bucket, files } = this.gridfs();
		for (;;) {
			const [newest] = await files
				.find({ filename: id }, { projection: { _id: 1 } })
				.sort(newestFirst)
				.limit(1)
				.toArray();
			if (!newest) return null;
			try {
				const chunks: Buffer[] = [];
				for await (const chunk of bucket.openDownloadStream(newest._id)) chunks.push(chunk as Buffer);
				return Buffer.concat(chunks);
			} catch (err) {
				// Dropped while read (a put replaced it): read the newest again.
				if (await files.countDocuments({ _id: newest._id }, { limit: 1 })) throw err;
			}
		}
	}

	async remove(id: string) {
		await this.drop({ filename: id });
	}

	/** Drops versions: each file document first (no reader finds it after), then its chunks. */
	private async drop(which: Document) {
		const { files, chunks } = this.gridfs();
		for (const file of await files.find(which, { projection: { _id: 1 } }).toArray()) {
			await files.deleteOne({ _id: file._id });
			await chunks.deleteMany({ files_id: file._id });
		}
	}

	private gridfs() {
		if (!this.opened) throw new Error("The blob store is not open");
		return this.opened;
	}
}

function bucketOf(db: Db) {
	return {
		bucket: new GridFSBucket(db, { bucketName: mongoBlobBucket }),
		files: db.collection<GridFSFile>(`${mongoBlobBucket}.files`),
		chunks: db.collection(`${mongoBlobBucket}.chunks`),
	};
}
