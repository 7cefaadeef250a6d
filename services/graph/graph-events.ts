import { Context } from "moleculer";
import { announce, userKey } from "../../shared/streams/stream-event";

/** What the graph tells users' streams (Server Events): their new connections and memberships. */

/** A connection (one record per side): each side's record to its owner. */
export async function connectionsAnnounced(
	ctx: Context,
	records: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
	await Promise.all(records.map(record => announce(ctx, "Connection", record, [userKey(String(record.OwnerId))])));
}

/** A new member of a network: to the member and to the network's owner. */
export function memberAnnounced(
	ctx: Context,
	record: Record<string, unknown> | undefined,
	ownerId: string,
): Promise<void> {
	return record
		? announce(ctx, "NetworkMember", record, [userKey(String(record.UserId)), userKey(ownerId)])
		: Promise.resolve();
}
