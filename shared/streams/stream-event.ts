import Joi from "joi";
import { Context } from "moleculer";
import { Comment, DeletedComment, DeletedPost, Post, Tag } from "../records/posts";
import { Connection, NetworkMember } from "../records/graph";
import { applyInvalidation, Invalidation } from "../cache/invalidation";
import { batchedBroadcast } from "../bus/turn-batch";

/**
 * The Moleculer event (broadcast: every gateway of the cluster hears it) that carries what happened
 * to users' streams: the events one node announced in one turn of its event loop (see announce).
 */
export const streamEventName = "plaza.streams";

/**
 * The records a stream carries, by the type its selector names (`cmd.Post`): the API's own record schemas write them.
 */
export const streamRecords = {
	Post,
	Comment,
	Tag,
	Connection,
	NetworkMember,
	PostDeleted: DeletedPost,
	CommentDeleted: DeletedComment,
} satisfies Record<string, Joi.Schema>;

export type StreamRecordType = keyof typeof streamRecords;

/**
 * Something that happened, for the streams it may reach. `keys` say whose streams listen for it (a
 * stream holds keys of its own: its feed's sources, `user:<its user>`); `readers`, when set, is who
 * may read it at all (a private post's author and recipients): a stream whose reach (its user and
 * their networks) meets none of them never gets it, whatever its keys.
 */
export interface StreamEvent {
	/**
	 * Stamped by the writer's node, so every gateway knows the same event by the same id (replay after a reconnect
	 * elsewhere).
	 */
	id: number;
	type: StreamRecordType;
	body: unknown;
	keys: string[];
	readers?: string[];
	/**
	 * Whose words it shows, its own author first (then those of the comments a post embeds): a stream whose user blocks
	 * or is blocked by one of them never gets it, nor a `Post` whose author its user mutes.
	 */
	authors?: string[];
	/**
	 * What kept answers it makes stale (a new post: the kept lists of its sources), dropped by every gateway before its
	 * streams hear it.
	 */
	drops?: Invalidation;
}

/** Who may read an event, whose words it shows, and what kept answers it makes stale. */
export interface Announcing {
	readers?: readonly string[];
	authors?: readonly string[];
	drops?: Invalidation;
}

/** The key of what is addressed to one user (comments on their posts, their connections). */
export const userKey = (userId: string) => `user:${userId}`;

let lastId = 0;

/**
 * An event id: milliseconds × 1000 plus a counter, increasing on this node, near other nodes'
 * (clocks), an integer as ServerEventsClient reads it, and a safe one until the year 2255.
 */
export function nextStreamEventId(now = Date.now()): number {
	lastId = Math.max(lastId + 1, now * 1000);
	return lastId;
}

const broadcastStreamEvent = batchedBroadcast<StreamEvent>(streamEventName);

/**
 * Tells every gateway what happened, after the write and before the answer; a failure to tell is only logged (the
 * write is done, and a stream that misses an event reloads). What it drops is dropped here at once, as with
 * `invalidate`, and by every gateway on hearing it. A turn's events leave in one packet per node (see turn-batch.ts).
 */
export async function announce(
	ctx: Context,
	type: StreamRecordType,
	body: unknown,
	keys: readonly string[],
	{ readers, authors, drops }: Announcing = {},
): Promise<void> {
	const event: StreamEvent = {
		id: nextStreamEventId(),
		type,
		body,
		keys: [...new Set(keys)],
		...(readers ? { readers: [...new Set(readers)] } : {}),
		...(authors ? { authors: [...new Set(authors)] } : {}),
		...(drops ? { drops } : {}),
	};
	if (drops) applyInvalidation(ctx.broker, drops);
	try {
		await broadcastStreamEvent(ctx.broker, event);
	} catch (err) {
		ctx.broker
			.getLogger("streams")
			.warn({ event: "stream-announce-failed", type, error: err }, `Announcing a ${type} to the streams failed`);
	}
}
