import { Collection } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { SessionRow, SessionsRepository } from "./sessions.repository";
import { MongoTokensRepository } from "./tokens.mongo";

interface SessionDocument {
	_id: string;
	user_id: string;
	user_name: string;
	display_name?: string;
	roles: string[];
	persistent: boolean;
	ttl_ms: number;
	created_time: number;
	slid_time: number;
	expires_time: number;
}

export const sessionsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "sessions by user and by end",
		apply: async db => {
			await db.collection("sessions").createIndex({ user_id: 1 }, { name: "sessions_by_user" });
			await db.collection("sessions").createIndex({ expires_time: 1 }, { name: "sessions_by_expiry" });
		},
	},
];

const documentOf = (s: SessionRow): SessionDocument => ({
	_id: s.Id,
	user_id: s.UserId,
	user_name: s.UserName,
	...(s.DisplayName ? { display_name: s.DisplayName } : {}),
	roles: s.Roles,
	persistent: s.Persistent,
	ttl_ms: s.TtlMs,
	created_time: s.CreatedTime,
	slid_time: s.SlidTime,
	expires_time: s.ExpiresTime,
});

const toSession = (d: SessionDocument): SessionRow => ({
	Id: d._id,
	UserId: d.user_id,
	UserName: d.user_name,
	...(d.display_name ? { DisplayName: d.display_name } : {}),
	Roles: d.roles ?? [],
	Persistent: d.persistent === true,
	TtlMs: d.ttl_ms,
	CreatedTime: d.created_time,
	SlidTime: d.slid_time,
	ExpiresTime: d.expires_time,
});

/** Sessions on MongoDB: what `SessionsRepository` does on SQL. */
export class MongoSessionsRepository implements RepositoryContract<SessionsRepository> {
	private readonly sessions: Collection<SessionDocument>;

	readonly tokens: MongoTokensRepository;

	constructor(private readonly store: MongoStore) {
		this.tokens = new MongoTokensRepository(store);
		this.sessions = store.collection<SessionDocument>("sessions");
	}

	async open(session: SessionRow): Promise<void> {
		await this.sessions.insertOne(documentOf(session));
	}

	async importSession(session: SessionRow): Promise<void> {
		await this.store.insertOnce(this.sessions, documentOf(session));
	}

	async find(key: string): Promise<SessionRow | undefined> {
		const doc = await this.sessions.findOne({ _id: key });
		return doc ? toSession(doc) : undefined;
	}

	/**
	 * A session's time to live never changes, so it is read first and the new end written with it (no update pipeline
	 * needed).
	 */
	async slide(key: string, now: number): Promise<boolean> {
		const found = await this.sessions.findOne({ _id: key }, { projection: { ttl_ms: 1 } });
		if (!found) return false;
		return (
			(await this.sessions.updateOne({ _id: key }, { $set: { slid_time: now, expires_time: now + found.ttl_ms } }))
				.matchedCount > 0
		);
	}

	async remove(key: string): Promise<boolean> {
		return (await this.sessions.deleteOne({ _id: key })).deletedCount > 0;
	}

	/** The keys deleted are those found: a session opened meanwhile stays, as if opened just after. */
	async removeAllOf(userId: string, except?: string): Promise<string[]> {
		const keys = (
			await this.sessions.find({ user_id: userId, _id: { $ne: except ?? "" } }, { projection: { _id: 1 } }).toArray()
		).map(doc => doc._id);
		if (keys.length) await this.sessions.deleteMany({ _id: { $in: keys } });
		return keys;
	}

	/** The keys deleted are those found ended: one that slid meanwhile is deleted only if it still is. */
	async removeExpired(now: number): Promise<string[]> {
		const keys = (await this.sessions.find({ expires_time: { $lte: now } }, { projection: { _id: 1 } }).toArray()).map(
			doc => doc._id,
		);
		if (keys.length) await this.sessions.deleteMany({ _id: { $in: keys }, expires_time: { $lte: now } });
		return keys;
	}
}
