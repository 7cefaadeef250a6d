import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Audience } from "../../shared/audience";
import { ConnectionRow, ConnectionsRepository } from "./connections.repository";
import { MembershipRow, NetworksRepository } from "./networks.repository";
import { SubscriptionRow, SubscriptionsRepository } from "./subscriptions.repository";

/** What a page of User records embeds, before names: the first N of each list per user, grouped by user. */
export interface Embedded {
	connections: ConnectionRow[];
	networks: MembershipRow[];
	subscriptions: SubscriptionRow[];
}

/** The social graph's repository: connections, networks with their members, subscriptions. */
/** The lists a user record embeds, each able to give its first entries per user. */
type EmbeddedLists = { readonly [K in keyof Embedded]: { firstOf(userIds: string[], limit: number): Promise<Embedded[K]> } };

/** The first `limit` entries of each embedded list for each of these users, the three read at once (embedFor on every engine). */
export async function firstOfEach(lists: EmbeddedLists, userIds: string[], limit: number): Promise<Embedded> {
	const [connections, networks, subscriptions] = await Promise.all([lists.connections.firstOf(userIds, limit), lists.networks.firstOf(userIds, limit), lists.subscriptions.firstOf(userIds, limit)]);
	return { connections, networks, subscriptions };
}

export class GraphRepository {
	readonly connections: ConnectionsRepository;

	readonly networks: NetworksRepository;

	readonly subscriptions: SubscriptionsRepository;

	constructor(private readonly db: SqlDatabase) {
		this.connections = new ConnectionsRepository(db);
		this.networks = new NetworksRepository(db);
		this.subscriptions = new SubscriptionsRepository(db);
	}

	/** The first `limit` connections, networks and subscriptions of each of these users, each list cut per user in its query. */
	embedFor(userIds: string[], limit: number): Promise<Embedded> {
		return firstOfEach(this, userIds, limit);
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

	/** A user's audience in one statement (one round trip); the posts service needs the sets, not an order. */
	async audienceOf(userId: string): Promise<Audience> {
		const rows = await this.db.all<{ kind: string; id: string }>(
			`SELECT 'p' AS kind, user_id AS id FROM connections WHERE owner_id = $1
			 UNION ALL SELECT 'p', subscribed_to_id FROM subscriptions WHERE subscriber_id = $1
			 UNION ALL SELECT 'n', network_id FROM network_members WHERE user_id = $1`,
			[userId],
		);
		return {
			people: rows.filter(r => r.kind === "p").map(r => r.id),
			networks: rows.filter(r => r.kind === "n").map(r => r.id),
		};
	}
}
