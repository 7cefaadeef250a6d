import { Collection } from "mongodb";
import { WindowCount } from "../../shared/attempts";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { upsertOnce } from "../../shared/persistence/mongo/errors";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { LimitsRepository } from "./limits.repository";

/** A counter of one key in one window; `_id` is the pair, so that an upsert finds it by its key. */
interface CountDocument {
	_id: string;
	counter_key: string;
	window_start: number;
	window_ms: number;
	total: number;
	expires_time: number;
}

export const limitsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "attempt counters by key and by expiry",
		apply: async db => {
			await db
				.collection("limit_counts")
				.createIndex({ counter_key: 1, window_start: 1 }, { name: "limit_counts_by_key" });
			await db.collection("limit_counts").createIndex({ expires_time: 1 }, { name: "limit_counts_by_expiry" });
		},
	},
];

/** Attempt counters on MongoDB: what `LimitsRepository` does on SQL. */
export class MongoLimitsRepository implements RepositoryContract<LimitsRepository> {
	private readonly counts: Collection<CountDocument>;

	constructor(store: MongoStore) {
		this.counts = store.collection<CountDocument>("limit_counts");
	}

	/**
	 * One `$inc` upsert per key, returning the total it made (the count before it, plus its own: the same
	 * atomic update as asking for the document after, which the in-memory test server answers racily).
	 */
	async add(
		window: number,
		windowMs: number,
		expiresTime: number,
		counts: Record<string, number>,
	): Promise<Record<string, number>> {
		const keys = Object.keys(counts).filter(key => counts[key] !== 0);
		const totals = await Promise.all(keys.map(key => this.addOne(key, window, windowMs, expiresTime, counts[key])));
		return Object.fromEntries(keys.map((key, i) => [key, totals[i]]));
	}

	private async addOne(key: string, window: number, windowMs: number, expiresTime: number, n: number): Promise<number> {
		const add = () =>
			this.counts.findOneAndUpdate(
				{ _id: `${window}:${key}` },
				{
					$inc: { total: n },
					$set: { expires_time: expiresTime },
					$setOnInsert: { counter_key: key, window_start: window, window_ms: windowMs },
				},
				{ upsert: true, returnDocument: "before", projection: { total: 1 } },
			);
		// Two first counts at once: both upserts insert, one meets the other's _id and counts again.
		return ((await upsertOnce(add))?.total ?? 0) + n;
	}

	async windowsOf(keys: readonly string[], now: number): Promise<WindowCount[]> {
		if (keys.length === 0) return [];
		const docs = await this.counts
			.find({ counter_key: { $in: [...keys] }, expires_time: { $gt: now } })
			.sort({ window_start: 1 })
			.toArray();
		return docs.map(doc => ({
			key: doc.counter_key,
			window: doc.window_start,
			windowMs: doc.window_ms,
			count: doc.total,
		}));
	}

	async clear(keys: readonly string[]): Promise<number> {
		if (keys.length === 0) return 0;
		return (await this.counts.deleteMany({ counter_key: { $in: [...keys] } })).deletedCount;
	}

	async removeExpired(now: number): Promise<number> {
		return (await this.counts.deleteMany({ expires_time: { $lte: now } })).deletedCount;
	}
}
