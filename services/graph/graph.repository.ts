import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Audience, Readers } from "../../shared/audience";
import { ConnectionRow, ConnectionsRepository, ForgottenConnections } from "./connections.repository";
import { MembershipRow, NetworksRepository } from "./networks.repository";
import { ForgottenSubscriptions, SubscriptionRow, SubscriptionsRepository } from "./subscriptions.repository";
import { RestrictionsRepository } from "./restrictions.repository";

/** What a page of User records embeds, before names: the first N of each list per user, grouped by user. */
export interface Embedded {
	connections: ConnectionRow[];
	networks: MembershipRow[];
	subscriptions: SubscriptionRow[];
}

/** The social graph's repository: connections, networks with their members, subscriptions. */
/** The lists a user record embeds, each able to give its first entries per user. */
type EmbeddedLists = {
	readonly [K in keyof Embedded]: { firstOf(userIds: string[], limit: number): Promise<Embedded[K]> };
};

/**
 * The first `limit` entries of each embedded list for each of these users, the three read at once (embedFor on every
 * engine).
 */
export async function firstOfEach(lists: EmbeddedLists, userIds: string[], limit: number): Promise<Embedded> {
	const [connections, networks, subscriptions] = await Promise.all([
		lists.connections.firstOf(userIds, limit),
		lists.networks.firstOf(userIds, limit),
		lists.subscriptions.firstOf(userIds, limit),
	]);
	return { connections, networks, subscriptions };
}

/** What forgetting a user removed of the graph: how many records, and whose audiences and readers it changed. */
export interface ForgottenUser {
	/** Connection sides, subscriptions (made and received) and memberships removed. */
	removed: number;
	/** The users the user was connected to. */
	connected: string[];
	/** The users and networks the user subscribed to. */
	subscribedTo: string[];
	/** The users subscribed to the user. */
	subscribers: string[];
	/** The networks the user was a member of. */
	networks: string[];
}

/** The graph's parts, each able to forget a user. */
type ForgettingParts = {
	readonly connections: { forgetUser(userId: string): Promise<ForgottenConnections> };
	readonly subscriptions: { forgetUser(userId: string): Promise<ForgottenSubscriptions> };
	readonly networks: { forgetUser(userId: string): Promise<string[]> };
	readonly blocks: { forgetUser(userId: string): Promise<number> };
	readonly mutes: { forgetUser(userId: string): Promise<number> };
};

/** Removes everything of a user from the graph (forgetUser on every engine): the parts at once. */
export async function forgetEach(parts: ForgettingParts, userId: string): Promise<ForgottenUser> {
	const [connections, subscriptions, networks, blocks, mutes] = await Promise.all([
		parts.connections.forgetUser(userId),
		parts.subscriptions.forgetUser(userId),
		parts.networks.forgetUser(userId),
		parts.blocks.forgetUser(userId),
		parts.mutes.forgetUser(userId),
	]);
	return {
		removed: connections.removed + subscriptions.removed + networks.length + blocks + mutes,
		connected: connections.others,
		subscribedTo: subscriptions.targets,
		subscribers: subscriptions.subscribers,
		networks,
	};
}

export class GraphRepository {
	readonly connections: ConnectionsRepository;

	readonly networks: NetworksRepository;

	readonly subscriptions: SubscriptionsRepository;

	readonly blocks: RestrictionsRepository;

	readonly mutes: RestrictionsRepository;

	constructor(private readonly db: SqlDatabase) {
		this.connections = new ConnectionsRepository(db);
		this.networks = new NetworksRepository(db);
		this.subscriptions = new SubscriptionsRepository(db);
		this.blocks = new RestrictionsRepository(db, "blocks");
		this.mutes = new RestrictionsRepository(db, "mutes");
	}

	/**
	 * The first `limit` connections, networks and subscriptions of each of these users, each list cut per user in its
	 * query.
	 */
	embedFor(userIds: string[], limit: number): Promise<Embedded> {
		return firstOfEach(this, userIds, limit);
	}

	/** Removes a user's connections (both sides), subscriptions made and received, and memberships (account deletion). */
	forgetUser(userId: string): Promise<ForgottenUser> {
		return forgetEach(this, userId);
	}

	/** Whether `id` is a network the user is a member of, or a user they are connected to (one statement). */
	async isMemberOrConnection(userId: string, id: string): Promise<boolean> {
		const found = await this.db.get(
			`SELECT 1 AS found FROM network_members WHERE network_id = $2 AND user_id = $1
			 UNION ALL SELECT 1 FROM connections WHERE owner_id = $1 AND user_id = $2 LIMIT 1`,
			[userId, id],
		);
		return !!found;
	}

	/**
	 * Who reads what these sources post: the users connected or subscribed to each of `follows`, the
	 * members of each of `members`; null for a source with more than `limit` of them.
	 */
	async readersOf(follows: string[], members: string[], limit: number): Promise<Readers> {
		const cut = limit + 1;
		// Each list cut in its own index walk; a reader both connected and subscribed is counted once, here rather than by
		// a UNION's temporary B-tree.
		const listed = (rows: Array<{ reader: string }>) => {
			const readers = new Set(rows.map(r => r.reader));
			return readers.size > limit ? null : [...readers];
		};
		const [followers, memberLists] = await Promise.all([
			Promise.all(
				follows.map(async id =>
					listed(
						await this.db.all<{ reader: string }>(
							`SELECT reader FROM (SELECT user_id AS reader FROM connections WHERE owner_id = $1 LIMIT ${cut}) AS c
							 UNION ALL SELECT reader FROM (SELECT subscriber_id AS reader FROM subscriptions WHERE subscribed_to_id = $1 LIMIT ${cut}) AS s`,
							[id],
						),
					),
				),
			),
			Promise.all(
				members.map(async id =>
					listed(
						await this.db.all<{ reader: string }>(
							`SELECT user_id AS reader FROM network_members WHERE network_id = $1 LIMIT ${cut}`,
							[id],
						),
					),
				),
			),
		]);
		return {
			follows: Object.fromEntries(follows.map((id, i) => [id, followers[i]])),
			members: Object.fromEntries(members.map((id, i) => [id, memberLists[i]])),
		};
	}

	/** A user's audience in one statement (one round trip); the posts service needs the sets, not an order. */
	async audienceOf(userId: string): Promise<Audience> {
		const rows = await this.db.all<{ kind: string; id: string }>(
			`SELECT 'p' AS kind, user_id AS id FROM connections WHERE owner_id = $1
			 UNION ALL SELECT 'p', subscribed_to_id FROM subscriptions WHERE subscriber_id = $1
			 UNION ALL SELECT 'n', network_id FROM network_members WHERE user_id = $1
			 UNION ALL SELECT 'h', user_id FROM blocks WHERE owner_id = $1
			 UNION ALL SELECT 'h', owner_id FROM blocks WHERE user_id = $1
			 UNION ALL SELECT 'm', user_id FROM mutes WHERE owner_id = $1`,
			[userId],
		);
		const of = (kind: string) => rows.filter(r => r.kind === kind).map(r => r.id);
		return { people: of("p"), networks: of("n"), hidden: [...new Set(of("h"))], muted: of("m") };
	}
}
