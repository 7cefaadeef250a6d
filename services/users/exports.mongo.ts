import { Collection, Filter } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { Caller } from "../../shared/caller";
import { ExportsRepository } from "./exports.repository";
import { ArchiveRow, ExportRow, ExportStatus, unfinished } from "./exports.rows";

interface ExportDocument {
	_id: string;
	user_id: string;
	status: ExportStatus;
	progress: number;
	caller: Caller;
	run: number;
	created_time: number;
	updated_time: number;
	completed_time?: number;
}

interface ArchiveDocument {
	_id: string;
	data: string;
	etag: string;
}

export const exportsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "data_exports by user and by status",
		apply: async db => {
			const exports = db.collection("data_exports");
			await exports.createIndex({ user_id: 1, status: 1 }, { name: "data_exports_by_user" });
			await exports.createIndex({ status: 1, updated_time: 1 }, { name: "data_exports_by_status" });
		},
	},
];

const toExport = (d: ExportDocument): ExportRow => ({
	Id: d._id,
	UserId: d.user_id,
	Status: d.status,
	Progress: d.progress,
	Caller: d.caller,
	Run: d.run,
	CreatedTime: d.created_time,
	UpdatedTime: d.updated_time,
	...(d.completed_time != null ? { CompletedTime: d.completed_time } : {}),
});

/** What its run may still write, as `heldBy` in exports.repository.ts. */
const heldBy = (id: string, run: number): Filter<ExportDocument> => ({
	_id: id,
	run,
	status: { $in: [...unfinished] },
});

/**
 * Exports on MongoDB: what `ExportsRepository` does on SQL. A run finishes in two writes, the archive then the export
 * Ready: a crash between leaves the export unfinished, which the sweep restarts (the archive is written again); an
 * older run's late archive is a whole archive of the same user too.
 */
export class MongoExportsRepository implements RepositoryContract<ExportsRepository> {
	private readonly exports: Collection<ExportDocument>;
	private readonly archives: Collection<ArchiveDocument>;

	constructor(store: MongoStore) {
		this.exports = store.collection<ExportDocument>("data_exports");
		this.archives = store.collection<ArchiveDocument>("data_export_archives");
	}

	/** The archives first: an export left by a crash between is removed by the next call. */
	async removeAllOf(userId: string): Promise<number> {
		const ids = (await this.exports.find({ user_id: userId }, { projection: { _id: 1 } }).toArray()).map(
			doc => doc._id,
		);
		if (ids.length) await this.archives.deleteMany({ _id: { $in: ids } });
		return (await this.exports.deleteMany({ user_id: userId })).deletedCount;
	}

	async add(row: ExportRow): Promise<void> {
		await this.exports.insertOne({
			_id: row.Id,
			user_id: row.UserId,
			status: row.Status,
			progress: row.Progress,
			caller: row.Caller,
			run: row.Run,
			created_time: row.CreatedTime,
			updated_time: row.UpdatedTime,
		});
	}

	async find(id: string): Promise<ExportRow | undefined> {
		const doc = await this.exports.findOne({ _id: id });
		return doc ? toExport(doc) : undefined;
	}

	async underWay(userId: string): Promise<ExportRow | undefined> {
		const doc = await this.exports.findOne(
			{ user_id: userId, status: { $in: [...unfinished] } },
			{ sort: { created_time: -1 } },
		);
		return doc ? toExport(doc) : undefined;
	}

	async progress(id: string, run: number, progress: number, now: number): Promise<boolean> {
		const done = await this.exports.updateOne(heldBy(id, run), {
			$set: { status: "Running", progress, updated_time: now },
		});
		return done.matchedCount > 0;
	}

	async complete(id: string, run: number, archive: ArchiveRow, now: number): Promise<boolean> {
		if (!(await this.exports.findOne(heldBy(id, run), { projection: { _id: 1 } }))) return false;
		await this.archives.updateOne({ _id: id }, { $set: { data: archive.Data, etag: archive.ETag } }, { upsert: true });
		const done = await this.exports.updateOne(heldBy(id, run), {
			$set: { status: "Ready", progress: 100, updated_time: now, completed_time: now },
		});
		return done.matchedCount > 0;
	}

	async fail(id: string, run: number, now: number): Promise<boolean> {
		const done = await this.exports.updateOne(heldBy(id, run), {
			$set: { status: "Failed", updated_time: now, completed_time: now },
		});
		return done.matchedCount > 0;
	}

	async archive(exportId: string): Promise<ArchiveRow | undefined> {
		const doc = await this.archives.findOne({ _id: exportId });
		return doc ? { ExportId: doc._id, Data: doc.data, ETag: doc.etag } : undefined;
	}

	async restartQuiet(before: number, now: number, limit: number): Promise<ExportRow[]> {
		const quiet: Filter<ExportDocument> = { status: { $in: [...unfinished] }, updated_time: { $lt: before } };
		const candidates = await this.exports.find(quiet).sort({ updated_time: 1 }).limit(limit).toArray();
		const taken: ExportRow[] = [];
		// Each taken over by one conditional update: of two sweeps at once, one matches.
		for (const candidate of candidates) {
			const doc = await this.exports.findOneAndUpdate(
				{ ...quiet, _id: candidate._id, run: candidate.run },
				{ $set: { status: "Pending", progress: 0, updated_time: now }, $inc: { run: 1 } },
				{ returnDocument: "after" },
			);
			if (doc) taken.push(toExport(doc));
		}
		return taken;
	}
}
