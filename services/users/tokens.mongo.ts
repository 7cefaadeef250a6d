import { Collection } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { TokensRepository } from "./tokens.repository";
import { RefreshTokenRow, SigningKeyRow } from "./tokens.rows";

interface RefreshTokenDocument {
	_id: string;
	session_key: string;
	created_time: number;
	expires_time: number;
	used_time?: number;
}

interface SigningKeyDocument {
	_id: string;
	sealed_private_key: string;
	public_jwk: string;
	created_time: number;
}

/** Steps of the sessions domain after `sessionsMongoMigrations` (version 1): run them together. */
export const tokensMongoMigrations: MongoMigration[] = [
	{
		version: 2,
		description: "refresh tokens by session and by end; signing keys",
		apply: async db => {
			const tokens = db.collection("refresh_tokens");
			await tokens.createIndex({ session_key: 1 }, { name: "refresh_tokens_by_session" });
			await tokens.createIndex({ expires_time: 1 }, { name: "refresh_tokens_by_expiry" });
			// Signing keys need only their _id; the collection is made at the first insert.
		},
	},
];

const toRefreshToken = (d: RefreshTokenDocument): RefreshTokenRow => ({
	Id: d._id,
	SessionKey: d.session_key,
	CreatedTime: d.created_time,
	ExpiresTime: d.expires_time,
	...(d.used_time !== undefined && d.used_time !== null ? { UsedTime: d.used_time } : {}),
});

const toSigningKey = (d: SigningKeyDocument): SigningKeyRow => ({
	Kid: d._id,
	SealedPrivateKey: d.sealed_private_key,
	PublicJwk: d.public_jwk,
	CreatedTime: d.created_time,
});

/** Refresh tokens and signing keys on MongoDB: what `TokensRepository` does on SQL. */
export class MongoTokensRepository implements RepositoryContract<TokensRepository> {
	private readonly tokens: Collection<RefreshTokenDocument>;
	private readonly keys: Collection<SigningKeyDocument>;

	constructor(private readonly store: MongoStore) {
		this.tokens = store.collection<RefreshTokenDocument>("refresh_tokens");
		this.keys = store.collection<SigningKeyDocument>("signing_keys");
	}

	async addRefreshToken(row: RefreshTokenRow): Promise<void> {
		await this.tokens.insertOne({
			_id: row.Id,
			session_key: row.SessionKey,
			created_time: row.CreatedTime,
			expires_time: row.ExpiresTime,
			...(row.UsedTime !== undefined ? { used_time: row.UsedTime } : {}),
		});
	}

	/** The update only matches an unused token, so of two at once exactly one marks it. */
	async useRefreshToken(id: string, now: number): Promise<{ row: RefreshTokenRow; firstUse: boolean } | undefined> {
		const marked = await this.tokens.findOneAndUpdate(
			{ _id: id, used_time: { $exists: false } },
			{ $set: { used_time: now } },
			{ returnDocument: "after" },
		);
		if (marked) return { row: toRefreshToken(marked), firstUse: true };
		const found = await this.tokens.findOne({ _id: id });
		return found ? { row: toRefreshToken(found), firstUse: false } : undefined;
	}

	async removeRefreshTokensOf(sessionKeys: readonly string[]): Promise<void> {
		if (sessionKeys.length === 0) return;
		await this.tokens.deleteMany({ session_key: { $in: [...sessionKeys] } });
	}

	async removeExpiredRefreshTokens(now: number): Promise<number> {
		return (await this.tokens.deleteMany({ expires_time: { $lte: now } })).deletedCount;
	}

	async signingKeys(): Promise<SigningKeyRow[]> {
		return (await this.keys.find().sort({ created_time: -1, _id: -1 }).toArray()).map(toSigningKey);
	}

	async addSigningKey(row: SigningKeyRow): Promise<void> {
		await this.store.insertOnce(this.keys, {
			_id: row.Kid,
			sealed_private_key: row.SealedPrivateKey,
			public_jwk: row.PublicJwk,
			created_time: row.CreatedTime,
		});
	}

	async removeSigningKeysBefore(time: number): Promise<number> {
		return (await this.keys.deleteMany({ created_time: { $lt: time } })).deletedCount;
	}
}
