import { Collection, Filter } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { mongoAnchorOf, withAnchor } from "../../shared/persistence/mongo/paging";
import { Page } from "../../shared/persistence/sql/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import {
	ConnectionRow,
	ConnectionSide,
	ConnectionsRepository,
	ForgottenConnections,
	newPair,
} from "./connections.repository";

/** One side of a connection, as the pair document holds it. */
interface SideFields {
	id: string;
	owner_id: string;
	user_id: string;
	is_favorite: boolean;
}

/**
 * A connection as MongoDB keeps it: one document per pair, both sides inside. A document is
 * MongoDB's unit of atomic writes, so the pair is written and removed whole, as SQL's transaction
 * writes its two rows: no crash can leave one side, and of A→B and B→A at once one insert wins.
 */
export interface PairDocument {
	/** The pair's key: the two user ids, lower first. */
	_id: string;
	owners: [string, string];
	sides: [SideFields, SideFields];
	created_time: number;
}

/**
 * Indexes of the pairs: a user's connections in order (multikey on owners), and a side by its Id (cursors,
 * DeleteConnection).
 */
export async function createConnectionIndexes(pairs: Collection<PairDocument>): Promise<void> {
	await pairs.createIndex({ owners: 1, created_time: 1, _id: 1 }, { name: "connections_by_owner" });
	await pairs.createIndex({ "sides.id": 1 }, { name: "connections_by_side", unique: true });
}

const pairKeyOf = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

const fieldsOf = (side: ConnectionSide): SideFields => ({
	id: side.Id,
	owner_id: side.OwnerId,
	user_id: side.UserId,
	is_favorite: side.IsFavorite,
});

const toConnection = (side: SideFields): ConnectionRow => ({
	Id: side.id,
	OwnerId: side.owner_id,
	UserId: side.user_id,
	IsFavorite: side.is_favorite === true,
});

/** The pair's document, its sides in the order of its owners. */
function pairOf(a: ConnectionSide, b: ConnectionSide): PairDocument {
	const [lower, upper] = a.OwnerId < b.OwnerId ? [a, b] : [b, a];
	return {
		_id: pairKeyOf(a.OwnerId, b.OwnerId),
		owners: [lower.OwnerId, upper.OwnerId],
		sides: [fieldsOf(lower), fieldsOf(upper)],
		created_time: Math.min(a.CreatedTime, b.CreatedTime),
	};
}

/** `owner`'s side of a pair they are in. */
const sideOf = (pair: PairDocument, owner: string) =>
	toConnection(pair.sides[0].owner_id === owner ? pair.sides[0] : pair.sides[1]);

/** Connections on MongoDB: what `ConnectionsRepository` does on SQL, each pair one document. */
export class MongoConnectionsRepository implements RepositoryContract<ConnectionsRepository> {
	private readonly pairs: Collection<PairDocument>;

	constructor(private readonly store: MongoStore) {
		this.pairs = store.collection<PairDocument>("connections");
	}

	/**
	 * Connects two users: [the owner's side, the other's], or undefined when they are connected already (either way
	 * round).
	 */
	async connect(
		ownerId: string,
		userId: string,
		isFavorite: boolean,
		now: number,
	): Promise<[ConnectionRow, ConnectionRow] | undefined> {
		const [mine, theirs] = newPair(ownerId, userId, isFavorite, now);
		if (!(await this.store.insertOnce(this.pairs, pairOf(mine, theirs)))) return undefined;
		return [toConnection(fieldsOf(mine)), toConnection(fieldsOf(theirs))];
	}

	/**
	 * Removes a connection, both sides in one delete: the owner's side as it was, or undefined when the owner has no such
	 * connection.
	 */
	async disconnect(id: string, ownerId: string): Promise<ConnectionRow | undefined> {
		const removed = await this.pairs.findOneAndDelete({ sides: { $elemMatch: { id, owner_id: ownerId } } });
		return removed ? sideOf(removed, ownerId) : undefined;
	}

	async sideBetween(ownerId: string, userId: string): Promise<ConnectionRow | undefined> {
		const pair = await this.pairs.findOne({ _id: pairKeyOf(ownerId, userId) });
		return pair ? sideOf(pair, ownerId) : undefined;
	}

	/**
	 * Removes every connection of a user (deleting an account): the sides removed, two a pair as on SQL, and the users at
	 * their other ends. Pairs are deleted by the ids read, again until none is left, so each one deleted is named.
	 */
	async forgetUser(userId: string): Promise<ForgottenConnections> {
		let removed = 0;
		const others = new Set<string>();
		for (;;) {
			const pairs = await this.pairs.find({ owners: userId }, { projection: { owners: 1 } }).toArray();
			if (pairs.length === 0) return { removed, others: [...others] };
			removed += 2 * (await this.pairs.deleteMany({ _id: { $in: pairs.map(pair => pair._id) } })).deletedCount;
			for (const pair of pairs) others.add(pair.owners[0] === userId ? pair.owners[1] : pair.owners[0]);
		}
	}

	/** A page of a user's connections, oldest first; the cursor is the Id of the user's side. */
	async of(ownerId: string, page: Page): Promise<ConnectionRow[]> {
		if (page.Limit === 0) return [];
		const owned: Filter<PairDocument> = { owners: ownerId };
		const anchor = await mongoAnchorOf(this.pairs, page, "created_time", owned, { cursor: "sides.id" });
		const pairs = await this.pairs
			.find(withAnchor(owned, "created_time", anchor) as Filter<PairDocument>)
			.sort({ created_time: 1, _id: 1 })
			.skip(page.Offset)
			.limit(page.Limit)
			.toArray();
		return pairs.map(pair => sideOf(pair, ownerId));
	}

	/** The first `limit` connections of each of these users (users in id order), one query per user cut by its limit. */
	async firstOf(ownerIds: string[], limit: number): Promise<ConnectionRow[]> {
		if (ownerIds.length === 0 || limit === 0) return [];
		const owners = [...new Set(ownerIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		const lists = await Promise.all(
			owners.map(async owner =>
				(await this.pairs.find({ owners: owner }).sort({ created_time: 1, _id: 1 }).limit(limit).toArray()).map(pair =>
					sideOf(pair, owner),
				),
			),
		);
		return lists.flat();
	}

	/**
	 * A side as the former store held it, with its stored Id, and its mirror unless the pair has it
	 * (see the SQL): the pair is read, then written whole, so importing both sides in either order,
	 * or again, ends in one whole pair.
	 */
	async importSide(side: ConnectionSide): Promise<void> {
		const key = pairKeyOf(side.OwnerId, side.UserId);
		const found = await this.pairs.findOne({ _id: key });
		const mirror = found ? found.sides.find(s => s.owner_id === side.UserId) : undefined;
		const other: ConnectionSide = mirror
			? {
					Id: mirror.id,
					OwnerId: mirror.owner_id,
					UserId: mirror.user_id,
					IsFavorite: mirror.is_favorite,
					CreatedTime: found!.created_time,
				}
			: { Id: newGuid(), OwnerId: side.UserId, UserId: side.OwnerId, IsFavorite: false, CreatedTime: side.CreatedTime };
		await this.pairs.replaceOne({ _id: key }, pairOf(side, other), { upsert: true });
	}

	/**
	 * The ids of the users a user is connected to (at most `limit` of them, when given: a fan-out asks whether there are
	 * more than it pushes to).
	 */
	async peopleOf(ownerId: string, limit?: number): Promise<string[]> {
		const pairs = await this.pairs
			.find({ owners: ownerId }, { projection: { owners: 1 } })
			.limit(limit ?? 0)
			.toArray();
		return pairs.map(pair => (pair.owners[0] === ownerId ? pair.owners[1] : pair.owners[0]));
	}

	/** Whether `ownerId` is connected to `userId`. */
	async isConnected(ownerId: string, userId: string): Promise<boolean> {
		return !!(await this.pairs.findOne({ _id: pairKeyOf(ownerId, userId) }, { projection: { _id: 1 } }));
	}
}
