import { Collection } from "mongodb";
import { failures } from "../../shared/errors";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { Page } from "../../shared/persistence/sql/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { MembershipRow, NetworkMemberRow, NetworkRow, NetworksRepository } from "./networks.repository";
import { firstOwned, OwnedList, ownedPage, pageOfJoined } from "../../shared/persistence/mongo/paging";

interface NetworkDocument {
	_id: string;
	name: string;
	owner_id: string;
	number_of_members: number;
	is_open: boolean;
	created_time: number;
	/**
	 * Joins and leaves under way whose count is not written yet (a crash leaves its mark): readers count the members
	 * themselves.
	 */
	counting?: number;
	/** When the latest of them began. */
	counting_since?: number;
}

/**
 * Longer than any join or leave takes between marking its network and writing the count: a mark this old was left by a
 * crash.
 */
const countingLeaseMs = 60_000;

/** A membership, unique by (network, user). */
interface MemberDocument {
	_id: string;
	network_id: string;
	user_id: string;
	created_time: number;
}

const networkFields = {
	_id: 1,
	name: 1,
	owner_id: 1,
	number_of_members: 1,
	is_open: 1,
	counting: 1,
	counting_since: 1,
} as const;
const memberFields = { _id: 1, network_id: 1, user_id: 1, created_time: 1 } as const;
/** A network's members in the order they joined; the cursor is a member's UserId. */
const membersList: OwnedList = { owner: "network_id", cursor: "user_id", projection: memberFields };
/** A user's memberships in the order joined; the cursor is a network's Id. */
const membershipsList: OwnedList = {
	owner: "user_id",
	cursor: "network_id",
	projection: { _id: 0, user_id: 1, network_id: 1 },
};

const toNetwork = (doc: Pick<NetworkDocument, keyof typeof networkFields>): NetworkRow => ({
	Id: doc._id,
	Name: doc.name,
	OwnerId: doc.owner_id,
	NumberOfMembers: doc.number_of_members,
	IsOpen: doc.is_open === true,
});

const toMember = (doc: MemberDocument): NetworkMemberRow => ({
	Id: doc._id,
	NetworkId: doc.network_id,
	UserId: doc.user_id,
	CreatedTime: doc.created_time,
});

/**
 * Networks and their members on MongoDB: what `NetworksRepository` does on SQL, NumberOfMembers recounted from the
 * member documents.
 */
export class MongoNetworksRepository implements RepositoryContract<NetworksRepository> {
	private readonly networks: Collection<NetworkDocument>;

	private readonly memberships: Collection<MemberDocument>;

	constructor(private readonly store: MongoStore) {
		this.networks = store.collection<NetworkDocument>("networks");
		this.memberships = store.collection<MemberDocument>("network_members");
	}

	/**
	 * A network (closed unless `isOpen`) and its owner as its first member: the membership first, then
	 * the network counting it. A crash between leaves a membership of no network, which the readers
	 * that return networks leave out (as the SQL's join does), and no network counts a member it lacks.
	 */
	async create(name: string, ownerId: string, now: number, isOpen = false): Promise<NetworkRow> {
		const network: NetworkRow = { Id: newGuid(), Name: name, OwnerId: ownerId, NumberOfMembers: 1, IsOpen: isOpen };
		await this.memberships.insertOne({ _id: newGuid(), network_id: network.Id, user_id: ownerId, created_time: now });
		await this.networks.insertOne({
			_id: network.Id,
			name,
			owner_id: ownerId,
			number_of_members: 1,
			is_open: isOpen,
			created_time: now,
		});
		return network;
	}

	async find(id: string): Promise<NetworkRow | undefined> {
		const doc = await this.networks.findOne({ _id: id }, { projection: networkFields });
		return doc ? (await this.counted([doc]))[0] : undefined;
	}

	async findMany(ids: string[]): Promise<NetworkRow[]> {
		if (ids.length === 0) return [];
		return this.counted(await this.networks.find({ _id: { $in: ids } }, { projection: networkFields }).toArray());
	}

	/**
	 * Makes a user a member unless they are one: the member, or undefined when it existed; 404 when the
	 * network does not exist (nothing written). The network is marked first, then the membership
	 * written, then the count, then the mark taken off: until then readers count the members
	 * themselves, so that no one reads a count a crash between these writes left wrong.
	 */
	async addMember(
		networkId: string,
		userId: string,
		now: number,
		id = newGuid(),
	): Promise<NetworkMemberRow | undefined> {
		const member: MemberDocument = { _id: id, network_id: networkId, user_id: userId, created_time: now };
		return this.whileCounting(networkId, async () =>
			(await this.store.insertOnce(this.memberships, member)) ? toMember(member) : undefined,
		);
	}

	async isMember(networkId: string, userId: string): Promise<boolean> {
		return !!(await this.memberships.findOne({ network_id: networkId, user_id: userId }, { projection: { _id: 1 } }));
	}

	/**
	 * Ends a membership, the count kept as a join keeps it (see addMember): whether there was one (of a network not
	 * there, as SQL, nothing to count).
	 */
	async removeMember(networkId: string, userId: string): Promise<boolean> {
		const exists = await this.networks.findOne({ _id: networkId }, { projection: { _id: 1 } });
		if (!exists) return (await this.memberships.deleteOne({ network_id: networkId, user_id: userId })).deletedCount > 0;
		return this.whileCounting(
			networkId,
			async () => (await this.memberships.deleteOne({ network_id: networkId, user_id: userId })).deletedCount > 0,
		);
	}

	/**
	 * Ends every membership of a user, each as removeMember does (its network's count kept): the networks left. A retry
	 * after a crash finds the memberships still there; a count the crash left marked is repaired as removeMember's is.
	 */
	async forgetUser(userId: string): Promise<string[]> {
		const left: string[] = [];
		for (;;) {
			const networkIds = await this.networkIdsOf(userId);
			if (networkIds.length === 0) return left;
			for (const networkId of networkIds) if (await this.removeMember(networkId, userId)) left.push(networkId);
		}
	}

	async members(networkId: string, page: Page): Promise<NetworkMemberRow[]> {
		return (await ownedPage(this.memberships, membersList, networkId, page)).map(toMember);
	}

	/**
	 * A page of the networks a user is a member of, in the order joined: memberships joined to their networks before the
	 * page is cut, as the SQL does.
	 */
	async networksOf(userId: string, page: Page): Promise<NetworkRow[]> {
		const docs = await pageOfJoined<MemberDocument, NetworkDocument>(
			this.memberships,
			page,
			{ user_id: userId },
			{ time: "created_time", cursor: membershipsList.cursor },
			{ from: "networks", localField: "network_id" },
		);
		return this.counted(docs);
	}

	/**
	 * The first `limit` networks each of these users joined, grouped by member; a membership whose network is missing
	 * counts, as in the SQL's ranking.
	 */
	async firstOf(userIds: string[], limit: number): Promise<MembershipRow[]> {
		const memberships = await firstOwned(this.memberships, membershipsList, userIds, limit);
		const networks = await this.findMany([...new Set(memberships.map(m => m.network_id))]);
		const byId = new Map(networks.map(n => [n.Id, n]));
		return memberships.flatMap(m => {
			const network = byId.get(m.network_id);
			return network ? [{ ...network, MemberId: m.user_id }] : [];
		});
	}

	/** A network as the former store held it, counting no one: its imported members count themselves. */
	async importNetwork(network: Omit<NetworkRow, "IsOpen"> & { IsOpen?: boolean; CreatedTime: number }): Promise<void> {
		const doc: NetworkDocument = {
			_id: network.Id,
			name: network.Name,
			owner_id: network.OwnerId,
			number_of_members: 0,
			is_open: network.IsOpen ?? false,
			created_time: network.CreatedTime,
		};
		await this.store.insertOnce(this.networks, doc);
	}

	async importMember(member: NetworkMemberRow): Promise<void> {
		if (!(await this.find(member.NetworkId))) return;
		await this.addMember(member.NetworkId, member.UserId, member.CreatedTime, member.Id);
	}

	/** The ids of the networks a user is a member of (the index by user alone). */
	async networkIdsOf(userId: string): Promise<string[]> {
		return (await this.memberships.find({ user_id: userId }, { projection: { _id: 0, network_id: 1 } }).toArray()).map(
			doc => doc.network_id,
		);
	}

	/** The first `limit` ids of a network's members (the unique (network, user) index alone). */
	async memberIdsOf(networkId: string, limit: number): Promise<string[]> {
		return (
			await this.memberships
				.find({ network_id: networkId }, { projection: { _id: 0, user_id: 1 } })
				.limit(limit)
				.toArray()
		).map(doc => doc.user_id);
	}

	/**
	 * Runs a change of a network's members with the network marked (`counting`), then writes the count and unmarks it
	 * (404 for no such network; a failure unmarks too). A crash leaves the mark, and readers count until one finds it
	 * older than the lease and repairs it. Only the change of members is announced: the rest changes nothing read.
	 */
	private async whileCounting<T>(networkId: string, change: () => Promise<T>): Promise<T> {
		const marked = await this.networks.updateOne(
			{ _id: networkId },
			{ $inc: { counting: 1 }, $set: { counting_since: Date.now() } },
		);
		if (marked.matchedCount === 0) throw failures.notFound(`Network ${networkId}`);
		try {
			const changed = await change();
			await this.recount(networkId);
			return changed;
		} finally {
			await this.networks.updateOne({ _id: networkId, counting: { $gt: 0 } }, { $inc: { counting: -1 } });
		}
	}

	/**
	 * Networks as readers may see them: where a change of members is under way, or was cut off by a
	 * crash, the count is taken from the member documents; a mark older than the lease is repaired.
	 */
	private async counted(docs: NetworkDocument[]): Promise<NetworkRow[]> {
		return Promise.all(
			docs.map(async doc => {
				if (!doc.counting) return toNetwork(doc);
				const members = await this.memberships.countDocuments({ network_id: doc._id });
				if ((doc.counting_since ?? 0) < Date.now() - countingLeaseMs) {
					await this.networks.updateOne(
						{ _id: doc._id, counting_since: doc.counting_since },
						{ $set: { number_of_members: members, counting: 0 } },
					);
				}
				return toNetwork({ ...doc, number_of_members: members });
			}),
		);
	}

	/**
	 * Sets NumberOfMembers to the number of member documents, counted rather than $inc'd so that a
	 * retry repairs a count a crash left wrong; counted again after the set until the two agree, since
	 * a concurrent join's newer count may have been set before this older one.
	 */
	private async recount(networkId: string): Promise<void> {
		const count = () => this.memberships.countDocuments({ network_id: networkId });
		let counted = await count();
		for (;;) {
			await this.networks.updateOne({ _id: networkId }, { $set: { number_of_members: counted } });
			const again = await count();
			if (again === counted) return;
			counted = again;
		}
	}
}
