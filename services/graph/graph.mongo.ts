import { Audience, Readers } from "../../shared/audience";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { Embedded, firstOfEach, forgetEach, ForgottenUser } from "./graph.repository";
import { GraphContract } from "./graph.contract";
import { createConnectionIndexes, MongoConnectionsRepository, PairDocument } from "./connections.mongo";
import { MongoNetworksRepository } from "./networks.mongo";
import { MongoSubscriptionsRepository } from "./subscriptions.mongo";
import { createRestrictionIndexes, MongoRestrictionsRepository } from "./restrictions.mongo";

/**
 * The graph domain's indexes (graph.schema.ts on SQL): the keys a record written twice at once meets
 * — a connection pair (its _id), a membership (network, user), a subscription (subscriber, target)
 * — and each list by (owner, created_time, _id), which pages and the first N per owner seek; and
 * subscribers by target, which a post's fan-out reads.
 */
export const graphMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "connections, networks, network_members and subscriptions: unique keys and lists by owner",
		apply: async db => {
			await createConnectionIndexes(db.collection<PairDocument>("connections"));
			await db
				.collection("network_members")
				.createIndex({ network_id: 1, user_id: 1 }, { name: "network_members_network_user", unique: true });
			await db
				.collection("network_members")
				.createIndex({ network_id: 1, created_time: 1, _id: 1 }, { name: "network_members_by_network" });
			// Covering for UserNetworks, embedFor and audienceOf: the network ids of a user in the order joined.
			await db
				.collection("network_members")
				.createIndex({ user_id: 1, created_time: 1, _id: 1, network_id: 1 }, { name: "network_members_by_user" });
			await db
				.collection("subscriptions")
				.createIndex(
					{ subscriber_id: 1, subscribed_to_id: 1 },
					{ name: "subscriptions_subscriber_target", unique: true },
				);
			await db
				.collection("subscriptions")
				.createIndex({ subscriber_id: 1, created_time: 1, _id: 1 }, { name: "subscriptions_by_subscriber" });
		},
	},
	{
		version: 2,
		description: "subscribers by what they subscribe to",
		// A post's fan-out reads who subscribes to its author and its context (graph.schema.ts's version 3); covering for
		// that read.
		apply: async db => {
			await db
				.collection("subscriptions")
				.createIndex({ subscribed_to_id: 1, subscriber_id: 1 }, { name: "subscriptions_by_target" });
		},
	},
	{
		version: 3,
		description: "blocks and mutes",
		apply: async db => {
			await createRestrictionIndexes(db, "blocks");
			await createRestrictionIndexes(db, "mutes");
		},
	},
];

/** The social graph on MongoDB: what `GraphRepository` does on SQL, the same three parts. */
export class MongoGraphRepository implements GraphContract {
	readonly connections: MongoConnectionsRepository;

	readonly networks: MongoNetworksRepository;

	readonly subscriptions: MongoSubscriptionsRepository;

	readonly blocks: MongoRestrictionsRepository;

	readonly mutes: MongoRestrictionsRepository;

	constructor(store: MongoStore) {
		this.connections = new MongoConnectionsRepository(store);
		this.networks = new MongoNetworksRepository(store);
		this.subscriptions = new MongoSubscriptionsRepository(store);
		this.blocks = new MongoRestrictionsRepository(store, "blocks");
		this.mutes = new MongoRestrictionsRepository(store, "mutes");
	}

	embedFor(userIds: string[], limit: number): Promise<Embedded> {
		return firstOfEach(this, userIds, limit);
	}

	forgetUser(userId: string): Promise<ForgottenUser> {
		return forgetEach(this, userId);
	}

	/** Whether `id` is a network the user is a member of, or a user they are connected to (two keyed reads at once). */
	async isMemberOrConnection(userId: string, id: string): Promise<boolean> {
		const found = await Promise.all([this.networks.isMember(id, userId), this.connections.isConnected(userId, id)]);
		return found.includes(true);
	}

	/**
	 * Who reads what these sources post (as `GraphRepository.readersOf`): the users connected or
	 * subscribed to each of `follows`, the members of each of `members`; null for a source with more
	 * than `limit`. Each list is read from its index and cut at limit + 1, enough to tell.
	 */
	async readersOf(follows: string[], members: string[], limit: number): Promise<Readers> {
		const cut = limit + 1;
		const listed = (ids: string[]) => (ids.length > limit ? null : ids);
		const [followers, memberLists] = await Promise.all([
			Promise.all(
				follows.map(async id => {
					const [connected, subscribed] = await Promise.all([
						this.connections.peopleOf(id, cut),
						this.subscriptions.subscribersOf(id, cut),
					]);
					// Either list cut makes the union longer than `limit`; otherwise both are whole and so is the union.
					return listed([...new Set([...connected, ...subscribed])]);
				}),
			),
			Promise.all(members.map(async id => listed(await this.networks.memberIdsOf(id, cut)))),
		]);
		return {
			follows: Object.fromEntries(follows.map((id, i) => [id, followers[i]])),
			members: Object.fromEntries(members.map((id, i) => [id, memberLists[i]])),
		};
	}

	/** A user's audience: its reads at once, each from an index alone. */
	async audienceOf(userId: string): Promise<Audience> {
		const [connected, subscribed, networks, blocked, blockers, muted] = await Promise.all([
			this.connections.peopleOf(userId),
			this.subscriptions.targetsOf(userId),
			this.networks.networkIdsOf(userId),
			this.blocks.listedBy(userId),
			this.blocks.listing(userId),
			this.mutes.listedBy(userId),
		]);
		return { people: [...connected, ...subscribed], networks, hidden: [...new Set([...blocked, ...blockers])], muted };
	}
}
