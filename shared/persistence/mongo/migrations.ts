import { Db } from "mongodb";
import { randomUUID } from "node:crypto";
import { isDuplicateKey } from "./errors";

/**
 * One step of a domain's MongoDB schema (its indexes, mostly): versions only grow, a released step
 * is never edited. A step must be safe to run again (createIndex is): a process that dies after the
 * step and before it is recorded runs it again at its next start.
 */
export interface MongoMigration {
	version: number;
	description: string;
	apply(db: Db): Promise<void>;
}

/**
 * How long a schema lock holds without being renewed: a process killed while holding it delays the others this long.
 */
const leaseMs = 30_000;
const retryMs = 100;

interface LockDocument {
	_id: string;
	holder: string;
	until: number;
}

interface MigrationDocument {
	_id: string;
	domain: string;
	version: number;
	description: string;
	applied_time: number;
}

/**
 * Holds the schema lock of the database (every process) while `work` runs. MongoDB has no advisory
 * lock: the lock is a document, taken by the update that finds its lease over or by inserting it,
 * and let go by deleting it.
 */
async function withLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
	const locks = db.collection<LockDocument>("plaza_locks");
	const holder = randomUUID();
	for (;;) {
		const now = Date.now();
		try {
			const taken = await locks.updateOne(
				{ _id: "schema", until: { $lt: now } },
				{ $set: { holder, until: now + leaseMs } },
				{ upsert: true },
			);
			if (taken.modifiedCount + taken.upsertedCount === 1) break;
		} catch (err) {
			// The lock is there and its lease runs: the upsert's insert met the held one.
			if (!isDuplicateKey(err)) throw err;
		}
		await new Promise(resolve => setTimeout(resolve, retryMs));
	}
	const renew = setInterval(
		() =>
			void locks.updateOne({ _id: "schema", holder }, { $set: { until: Date.now() + leaseMs } }).catch(() => undefined),
		leaseMs / 3,
	);
	try {
		return await work();
	} finally {
		clearInterval(renew);
		await locks.deleteOne({ _id: "schema", holder });
	}
}

/** Brings a domain's collections to its latest version, each step once, under the schema lock. */
export async function migrateMongo(db: Db, domain: string, migrations: readonly MongoMigration[]): Promise<number[]> {
	return withLock(db, async () => {
		const record = db.collection<MigrationDocument>("plaza_migrations");
		const done = new Set((await record.find({ domain }).toArray()).map(doc => doc.version));
		const applied: number[] = [];
		for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
			if (done.has(step.version)) continue;
			await step.apply(db);
			await record.insertOne({
				_id: `${domain}:${step.version}`,
				domain,
				version: step.version,
				description: step.description,
				applied_time: Date.now(),
			});
			applied.push(step.version);
		}
		return applied;
	});
}
