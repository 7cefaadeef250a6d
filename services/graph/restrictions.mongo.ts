import { Collection, Db } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { OwnedList, ownedPage } from "../../shared/persistence/mongo/paging";
import { Page } from "../../shared/persistence/sql/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { RestrictionKind, RestrictionRow, RestrictionsRepository } from "./restrictions.repository";

/** An entry of a user's blocks or mutes, keyed by (owner, user) in its _id. */
interface RestrictionDocument {
	_id: string;
	owner_id: string;
	user_id: string;
	created_time: number;
}

const fields = { _id: 0, owner_id: 1, user_id: 1, created_time: 1 } as const;
const list: OwnedList = { owner: "owner_id", cursor: "user_id", projection: fields };

const keyOf = (ownerId: string, userId: string) => `${ownerId}:${userId}`;

const toRow = (doc: Omit<RestrictionDocument, "_id">): RestrictionRow => ({
	OwnerId: doc.owner_id,
	UserId: doc.user_id,
	CreatedTime: doc.created_time,
});

/** The indexes of a user's blocks or mutes (graph.schema.ts's version 4): listed by owner, found by user. */
export async function createRestrictionIndexes(db: Db, kind: RestrictionKind): Promise<void> {
	const entries = db.collection<RestrictionDocument>(kind);
	await entries.createIndex({ owner_id: 1, created_time: 1, _id: 1 }, { name: `${kind}_by_owner` });
	await entries.createIndex({ user_id: 1, owner_id: 1 }, { name: `${kind}_by_user` });
}

/** A user's blocks or mutes on MongoDB: what `RestrictionsRepository` does on SQL, a collection each. */
export class MongoRestrictionsRepository implements RepositoryContract<RestrictionsRepository> {
	private readonly entries: Collection<RestrictionDocument>;

	constructor(
		private readonly store: MongoStore,
		kind: RestrictionKind,
	) {
		this.entries = store.collection<RestrictionDocument>(kind);
	}

	async add(ownerId: string, userId: string, now: number): Promise<RestrictionRow> {
		const doc = { _id: keyOf(ownerId, userId), owner_id: ownerId, user_id: userId, created_time: now };
		if (await this.store.insertOnce(this.entries, doc)) return toRow(doc);
		const stored = await this.entries.findOne({ _id: doc._id }, { projection: fields });
		return stored ? toRow(stored) : toRow(doc);
	}

	async remove(ownerId: string, userId: string): Promise<RestrictionRow | undefined> {
		const removed = await this.entries.findOneAndDelete({ _id: keyOf(ownerId, userId) }, { projection: fields });
		return removed ? toRow(removed) : undefined;
	}

	async of(ownerId: string, page: Page): Promise<RestrictionRow[]> {
		return (await ownedPage(this.entries, list, ownerId, page)).map(toRow);
	}

	async between(a: string, b: string): Promise<boolean> {
		return !!(await this.entries.findOne({ _id: { $in: [keyOf(a, b), keyOf(b, a)] } }, { projection: { _id: 1 } }));
	}

	async forgetUser(userId: string): Promise<number> {
		return (await this.entries.deleteMany({ $or: [{ owner_id: userId }, { user_id: userId }] })).deletedCount;
	}

	/** The users the owner has in this list (the index by owner alone). */
	async listedBy(ownerId: string): Promise<string[]> {
		const docs = await this.entries.find({ owner_id: ownerId }, { projection: { _id: 0, user_id: 1 } }).toArray();
		return docs.map(doc => doc.user_id);
	}

	/** The users who have this user in their list (the index by user alone). */
	async listing(userId: string): Promise<string[]> {
		const docs = await this.entries.find({ user_id: userId }, { projection: { _id: 0, owner_id: 1 } }).toArray();
		return docs.map(doc => doc.owner_id);
	}
}
