import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Page, pageOf } from "../../shared/persistence/sql/paging";
import { present } from "../../shared/persistence/sql/rows";
import { newGuid } from "../../shared/wire/guid";

/** A subscription to a user or a network (its record has no Id: it is known by subscriber and target). */
export interface SubscriptionRow {
	SubscriberId: string;
	SubscribedToId: string;
	SubscriberToDisplayName?: string;
	SubscribedToExternalName?: string;
}

/** What forgetting a user removed of subscriptions: how many, what the user subscribed to, who subscribed to them. */
export interface ForgottenSubscriptions {
	removed: number;
	targets: string[];
	subscribers: string[];
}

const columns =
	'subscriber_id AS "SubscriberId", subscribed_to_id AS "SubscribedToId", subscriber_to_display_name AS "SubscriberToDisplayName", subscribed_to_external_name AS "SubscribedToExternalName"';

/** Subscriptions, unique by (subscriber, target). */
export class SubscriptionsRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** Subscribes unless subscribed: the subscription, or undefined when it existed. */
	async add(subscription: SubscriptionRow, now: number, id = newGuid()): Promise<SubscriptionRow | undefined> {
		const row = await this.db.get<SubscriptionRow>(
			`INSERT INTO subscriptions (id, subscriber_id, subscribed_to_id, subscriber_to_display_name, subscribed_to_external_name, created_time) VALUES ($1, $2, $3, $4, $5, $6)
			 ON CONFLICT (subscriber_id, subscribed_to_id) DO NOTHING RETURNING ${columns}`,
			[
				id,
				subscription.SubscriberId,
				subscription.SubscribedToId,
				subscription.SubscriberToDisplayName ?? null,
				subscription.SubscribedToExternalName ?? null,
				now,
			],
		);
		return row && present(row);
	}

	/** Unsubscribes: the subscription as it was, or undefined when there was none. */
	async remove(subscriberId: string, subscribedToId: string): Promise<SubscriptionRow | undefined> {
		const row = await this.db.get<SubscriptionRow>(
			`DELETE FROM subscriptions WHERE subscriber_id = $1 AND subscribed_to_id = $2 RETURNING ${columns}`,
			[subscriberId, subscribedToId],
		);
		return row && present(row);
	}

	/**
	 * Removes the subscriptions a user made and those to them, in one transaction (deleting an account): how many, what
	 * they subscribed to and who subscribed to them.
	 */
	async forgetUser(userId: string): Promise<ForgottenSubscriptions> {
		return this.db.transaction(async tx => {
			const made = await tx.all<{ id: string }>(
				"DELETE FROM subscriptions WHERE subscriber_id = $1 RETURNING subscribed_to_id AS id",
				[userId],
			);
			const received = await tx.all<{ id: string }>(
				"DELETE FROM subscriptions WHERE subscribed_to_id = $1 RETURNING subscriber_id AS id",
				[userId],
			);
			return {
				removed: made.length + received.length,
				targets: made.map(row => row.id),
				subscribers: received.map(row => row.id),
			};
		});
	}

	/** A page of what a user subscribes to, oldest first; the cursor is the SubscribedToId of a subscription. */
	async of(subscriberId: string, page: Page): Promise<SubscriptionRow[]> {
		const list = {
			table: "subscriptions",
			columns,
			owner: "subscriber_id",
			time: "created_time",
			tiebreak: "id",
			cursor: "subscribed_to_id",
		};
		return (await pageOf<SubscriptionRow>(this.db, list, subscriberId, page)).map(present);
	}

	/** The first `limit` subscriptions of each of these users (oldest first, grouped by subscriber), cut in the query. */
	async firstOf(subscriberIds: string[], limit: number): Promise<SubscriptionRow[]> {
		if (subscriberIds.length === 0 || limit === 0) return [];
		// Ranked from the index alone; only the rows kept are read from the table.
		const rows = await this.db.all<SubscriptionRow>(
			`SELECT ${columns} FROM (
				SELECT id AS ranked_id, ROW_NUMBER() OVER (PARTITION BY subscriber_id ORDER BY created_time, id) AS n
				FROM subscriptions WHERE ${this.db.dialect.anyOf("subscriber_id", "$1")}
			) ranked JOIN subscriptions ON id = ranked_id WHERE n <= $2 ORDER BY subscriber_id, n`,
			[this.db.dialect.listParam(subscriberIds), limit],
		);
		return rows.map(present);
	}
}
