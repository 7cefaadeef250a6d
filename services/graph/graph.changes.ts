import { Changes } from "../../shared/changes/changes";
import { audienceCache, readersCache, ReadersChange, readersKeys } from "../../shared/audience";
import { userKey } from "../../shared/streams/stream-event";

/**
 * What each write of the graph changes (shared/changes/changes.ts carries it out): whom users follow
 * and which networks they are in, and so who reads those sources; and what users' streams hear.
 */

/**
 * These users' audiences changed, and so who reads `readers`' sources: the posts nodes ask again. User records embed
 * connections, networks and subscriptions, so the domain's kept answers go too.
 */
export function audienceChanged(userIds: readonly string[], readers: ReadersChange): Changes {
	return {
		domain: "graph",
		drops: [
			{ cache: audienceCache, keys: userIds },
			{ cache: readersCache, keys: readersKeys(readers) },
		],
	};
}

/** A connection, one record per side: each side's stream hears its own record. */
export function connected(ownerId: string, otherId: string, records: ReadonlyArray<Record<string, unknown>>): Changes {
	return {
		...audienceChanged([ownerId, otherId], { follows: [ownerId, otherId] }),
		events: records.map(record => ({ type: "Connection", body: record, keys: [userKey(String(record.OwnerId))] })),
	};
}

/** A new member of a network: the member's and the network owner's streams hear it. */
export function memberAdded(
	networkId: string,
	userId: string,
	record: Record<string, unknown> | undefined,
	ownerId: string,
): Changes {
	return {
		...audienceChanged([userId], { members: [networkId] }),
		events: record ? [{ type: "NetworkMember", body: record, keys: [userKey(userId), userKey(ownerId)] }] : [],
	};
}

/**
 * A block made or lifted: both users' audiences (each hides the other), and who reads each of them (a connection or
 * subscription it ended).
 */
export const blockChanged = (ownerId: string, userId: string): Changes =>
	audienceChanged([ownerId, userId], { follows: [ownerId, userId] });

/** A mute made or lifted: the owner's audience alone (the muted user is not told, and reads as before). */
export const muteChanged = (ownerId: string): Changes => audienceChanged([ownerId], {});
