import { Collection } from "mongodb";
import { MongoStore } from "../persistence/mongo/store";
import { MongoMigration } from "../persistence/mongo/migrations";
import { isDuplicateKey } from "../persistence/mongo/errors";
import { claimTakenOver, IdempotencyKeys, KeyClaim } from "./keys";

interface KeyDocument {
	_id: string;
	fingerprint: string;
	state: "running" | "committed" | "done";
	answer: string | null;
	expires_time: number;
	token: string;
	lease_time: number;
}

export const idempotencyKeysMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "idempotency keys by expiry",
		apply: async db => {
			await db.collection("idempotency_keys").createIndex({ expires_time: 1 }, { name: "idempotency_keys_by_expiry" });
		},
	},
];

/**
 * Idempotency keys on MongoDB, which has no transactions here: the claim is marked committed before
 * the write runs (each update is atomic and acknowledged by a majority's journal), so a node that
 * dies at any point leaves a claim that is never run again; the retry is told it may have been done.
 */
export class MongoIdempotencyKeys implements IdempotencyKeys {
	private readonly keys: Collection<KeyDocument>;

	constructor(store: MongoStore) {
		this.keys = store.collection<KeyDocument>("idempotency_keys");
	}

	/**
	 * One conditional upsert claims: it matches only an expired key, and where one is held its insert meets the held _id.
	 */
	async claim(keyId: string, fingerprint: string, token: string, now: number, leaseEnds: number): Promise<KeyClaim> {
		try {
			await this.keys.updateOne(
				{ _id: keyId, expires_time: { $lte: now } },
				{
					$set: { fingerprint, state: "running", answer: null, expires_time: leaseEnds, token, lease_time: leaseEnds },
				},
				{ upsert: true },
			);
			return { state: "claimed" };
		} catch (err) {
			if (!isDuplicateKey(err)) throw err;
		}
		const doc = await this.keys.findOne({ _id: keyId });
		if (!doc) return { state: "running", fingerprint };
		if (doc.state === "done" && doc.answer !== null)
			return { state: "done", fingerprint: doc.fingerprint, answer: doc.answer };
		if (doc.state === "committed" && doc.lease_time <= now) return { state: "lost", fingerprint: doc.fingerprint };
		return { state: "running", fingerprint: doc.fingerprint };
	}

	async markCommitted(keyId: string, token: string, keepUntil: number): Promise<void> {
		const marked = await this.keys.updateOne(
			{ _id: keyId, token, state: { $in: ["running", "committed"] } },
			{ $set: { state: "committed", expires_time: keepUntil } },
		);
		if (marked.matchedCount !== 1) throw claimTakenOver();
	}

	async answer(keyId: string, token: string, answer: string, keepUntil: number): Promise<number> {
		return (
			await this.keys.updateOne(
				{ _id: keyId, token, state: { $in: ["running", "committed"] } },
				{ $set: { state: "done", answer, expires_time: keepUntil } },
			)
		).modifiedCount;
	}

	async giveUp(keyId: string, token: string): Promise<void> {
		await this.keys.deleteOne({ _id: keyId, token, state: "running" });
		await this.keys.updateOne({ _id: keyId, token, state: "committed" }, { $set: { lease_time: 0 } });
	}

	async removeExpired(now: number): Promise<number> {
		return (await this.keys.deleteMany({ expires_time: { $lte: now } })).deletedCount;
	}
}
