import { Collection, Filter } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { Page } from "../../shared/persistence/sql/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { ForgottenSubscriptions, SubscriptionRow, SubscriptionsRepository } from "./subscriptions.repository";
import { firstOwned, OwnedList, ownedPage } from "../../shared/persistence/mongo/paging";

/** A subscription, unique by (subscriber, target); a name not given is absent. */
interface SubscriptionDocument {
	_id: string;
	subscriber_id: string;
	subscribed_to_id: string;
	subscriber_to_display_name?: string;
	subscribed_to_external_name?: string;
	created_time: number;
}

const subscriptionFields = {
	_id: 0,
	subscriber_id: 1,
	subscribed_to_id: 1,
	subscriber_to_display_name: 1,
	subscribed_to_external_name: 1,
} as const;
/** What a user subscribes to, oldest first; the cursor is the SubscribedToId. */
const list: OwnedList = { owner: "subscriber_id", cursor: "subscribed_to_id", projection: subscriptionFields };

function toSubscription(doc: Omit<SubscriptionDocument, "_id" | "created_time">): SubscriptionRow {
	const row: SubscriptionRow = { SubscriberId: doc.subscriber_id, SubscribedToId: doc.subscribed_to_id };
	if (typeof doc.subscriber_to_display_name === "string") row.SubscriberToDisplayName = doc.subscriber_to_display_name;
	if (typeof doc.subscribed_to_external_name === "string")
		row.SubscribedToExternalName = doc.subscribed_to_external_name;
	return row;
}

/** Subscriptions on MongoDB: what `SubscriptionsRepository` does on SQL. */
export class MongoSubscriptionsRepository implements RepositoryContract<SubscriptionsRepository> {
	private readonly subscriptions: Collection<SubscriptionDocument>;

	constructor(private readonly store: MongoStore) {
		this.subscriptions = store.collection<SubscriptionDocument>("subscriptions");
	}

	/**
	 * Subscribes unless subscribed (the unique key, or the id a former record had): the subscription, or undefined when
	 * it existed.
	 */
	async add(subscription: SubscriptionRow, now: number, id = newGuid()): Promise<SubscriptionRow | undefined> {
		const doc: SubscriptionDocument = {
			_id: id,
			subscriber_id: subscription.SubscriberId,
			subscribed_to_id: subscription.SubscribedToId,
			created_time: now,
		};
		if (subscription.SubscriberToDisplayName !== undefined)
			doc.subscriber_to_display_name = subscription.SubscriberToDisplayName;
		if (subscription.SubscribedToExternalName !== undefined)
			doc.subscribed_to_external_name = subscription.SubscribedToExternalName;
		return (await this.store.insertOnce(this.subscriptions, doc)) ? toSubscription(doc) : undefined;
	}

	async remove(subscriberId: string, subscribedToId: string): Promise<SubscriptionRow | undefined> {
		const doc = await this.subscriptions.findOneAndDelete(
			{ subscriber_id: subscriberId, subscribed_to_id: subscribedToId },
			{ projection: subscriptionFields },
		);
		return doc ? toSubscription(doc) : undefined;
	}

	async of(subscriberId: string, page: Page): Promise<SubscriptionRow[]> {
		return (await ownedPage(this.subscriptions, list, subscriberId, page)).map(toSubscription);
	}

	async firstOf(subscriberIds: string[], limit: number): Promise<SubscriptionRow[]> {
		return (await firstOwned(this.subscriptions, list, subscriberIds, limit)).map(toSubscription);
	}

	/**
	 * Removes the subscriptions a user made and those to them (see the SQL): each list deleted by the ids read, again
	 * until none is left, so that each one deleted is named.
	 */
	async forgetUser(userId: string): Promise<ForgottenSubscriptions> {
		const made = await this.removeAll({ subscriber_id: userId }, doc => doc.subscribed_to_id);
		const received = await this.removeAll({ subscribed_to_id: userId }, doc => doc.subscriber_id);
		return { removed: made.removed + received.removed, targets: made.ids, subscribers: received.ids };
	}

	/** The ids a user subscribes to (the unique index alone). */
	async targetsOf(subscriberId: string): Promise<string[]> {
		return (
			await this.subscriptions
				.find({ subscriber_id: subscriberId }, { projection: { _id: 0, subscribed_to_id: 1 } })
				.toArray()
		).map(doc => doc.subscribed_to_id);
	}

	/**
	 * The first `limit` ids of the users subscribed to `targetId` (the index by target alone, graph.mongo.ts version 2).
	 */
	async subscribersOf(targetId: string, limit: number): Promise<string[]> {
		return (
			await this.subscriptions
				.find({ subscribed_to_id: targetId }, { projection: { _id: 0, subscriber_id: 1 } })
				.limit(limit)
				.toArray()
		).map(doc => doc.subscriber_id);
	}

	/** Deletes the subscriptions `filter` matches: how many, and `idOf` each of them. */
	private async removeAll(
		filter: Filter<SubscriptionDocument>,
		idOf: (doc: Pick<SubscriptionDocument, "subscriber_id" | "subscribed_to_id">) => string,
	): Promise<{ removed: number; ids: string[] }> {
		let removed = 0;
		const ids = new Set<string>();
		for (;;) {
			const docs = await this.subscriptions
				.find(filter, { projection: { _id: 1, subscriber_id: 1, subscribed_to_id: 1 } })
				.toArray();
			if (docs.length === 0) return { removed, ids: [...ids] };
			removed += (await this.subscriptions.deleteMany({ _id: { $in: docs.map(doc => doc._id) } })).deletedCount;
			for (const doc of docs) ids.add(idOf(doc));
		}
	}
}
