import { Collection } from "mongodb";
import { KeyClaim } from "../../shared/idempotency";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { isDuplicateKey } from "../../shared/persistence/mongo/errors";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { IdempotencyRepository } from "./idempotency.repository";

interface KeyDocument {
	_id: string;
	fingerprint: string;
	state: "running" | "done";
	answer: string | null;
	expires_time: number;
}

export const idempotencyMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "idempotency keys by expiry",
		apply: async db => {
			await db.collection("idempotency_keys").createIndex({ expires_time: 1 }, { name: "idempotency_keys_by_expiry" });
		},
	},
];

/** Idempotency keys on MongoDB: what `IdempotencyRepository` does on SQL. */
export class MongoIdempotencyRepository implements RepositoryContract<IdempotencyRepository> {
	private readonly keys: Collection<KeyDocument>;

	constructor(private readonly store: MongoStore) {
		this.keys = store.collection<KeyDocument>("idempotency_keys");
	}

	/**
	 * One conditional upsert claims: it matches only a key whose time is over, and where the key is
	 * held its insert meets the held one's _id, so two nodes cannot both claim.
	 */
	async claim(keyId: string, fingerprint: string, now: number, leaseEnds: number): Promise<KeyClaim> {
		try {
			await this.store.write(this.keys.updateOne({ _id: keyId, expires_time: { $lte: now } }, { $set: { fingerprint, state: "running", answer: null, expires_time: leaseEnds } }, { upsert: true }));
			return { state: "claimed" };
		} catch (err) {
			if (!isDuplicateKey(err)) throw err;
		}
		const doc = await this.keys.findOne({ _id: keyId });
		if (!doc) return { state: "running", fingerprint };
		if (doc.state === "done" && doc.answer !== null) return { state: "done", fingerprint: doc.fingerprint, answer: doc.answer };
		return { state: "running", fingerprint: doc.fingerprint };
	}

	async answer(keyId: string, answer: string, expiresTime: number): Promise<number> {
		return (await this.store.write(this.keys.updateOne({ _id: keyId, state: "running" }, { $set: { state: "done", answer, expires_time: expiresTime } }))).modifiedCount;
	}

	async release(keyId: string): Promise<number> {
		return (await this.store.write(this.keys.deleteOne({ _id: keyId, state: "running" }))).deletedCount;
	}

	async removeExpired(now: number): Promise<number> {
		return (await this.store.write(this.keys.deleteMany({ expires_time: { $lte: now } }))).deletedCount;
	}
}
