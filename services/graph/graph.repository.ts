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
	async embedFor(userIds: string[], limit: number): Promise<Embedded> {
		const [connections, networks, subscriptions] = await Promise.all([this.connections.firstOf(userIds, limit), this.networks.firstOf(userIds, limit), this.subscriptions.firstOf(userIds, limit)]);
		return { connections, networks, subscriptions };
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
