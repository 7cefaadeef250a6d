import { Context, ServiceBroker } from "moleculer";
import { announce, userKey } from "../../shared/streams/stream-event";
import { audienceCache, audienceOf } from "../../shared/audience";
import { onInvalidation } from "../../shared/cache/node-caches";
import { postListKeys, postListSources, recipientKey } from "./kept-post-lists";
import { reachOf } from "./posts.sql";
import { NewRecipient, PostRow } from "./posts.rows";
import { readerSources, sourceKey } from "./timeline-sources";

/**
 * What the posts domain tells users' streams (Server Events): a new post to the streams whose
 * timeline it joins (its timeline sources, which the kept lists are dropped by too), comments and
 * tags to the post's author.
 */

/**
 * A post was created: it joins the lists of its sources, so the kept pages read from them are
 * dropped, and it goes to every stream whose feed reads one of them (a private one only to its
 * audience). One event does both: the sources are the same keys.
 */
export function postAnnounced(
	ctx: Context,
	post: PostRow,
	record: unknown,
	tags: readonly string[],
	recipients: readonly NewRecipient[],
): Promise<void> {
	const keys = postListKeys(post, tags, recipients);
	return announce(ctx, "Post", record, keys, {
		readers: post.IsPrivate ? [post.AuthorId, ...recipients.map(r => r.id)] : undefined,
		drops: { cache: postListSources.name, keys },
	});
}

/** A post was addressed to one more user or network: to the streams it now reaches through that recipient alone. */
export function recipientAnnounced(
	ctx: Context,
	post: PostRow,
	record: unknown,
	recipient: NewRecipient,
): Promise<void> {
	return announce(ctx, "Post", record, [recipientKey(recipient)], {
		readers: post.IsPrivate ? [recipient.id] : undefined,
	});
}

/** A comment on a post: to its author (who always sees their own post). */
export function commentAnnounced(ctx: Context, post: PostRow, record: unknown): Promise<void> {
	return announce(ctx, "Comment", record, [userKey(post.AuthorId)]);
}

/** A tag on a post: to its author. */
export function tagAnnounced(ctx: Context, post: PostRow, record: unknown): Promise<void> {
	return announce(ctx, "Tag", record, [userKey(post.AuthorId)]);
}

/**
 * What a user's stream listens for and may read: their timeline's sources and what is addressed to them; their reach
 * for private posts.
 */
export interface ReaderScope {
	keys: string[];
	reach: string[];
}

/** A user's stream scope, from their audience (through the node's audience cache, which the graph invalidates). */
export async function readerScope(ctx: Context, userId: string): Promise<ReaderScope> {
	const audience = await audienceOf(ctx, userId);
	return {
		keys: [...readerSources(userId, audience).map(sourceKey), userKey(userId)],
		reach: reachOf({ userId, admin: false, networks: audience.networks }),
	};
}

/**
 * Calls back with the users whose stream scope may have changed: the graph dropped their audience (a follow, a
 * membership).
 */
export function onReaderScopeChange(broker: ServiceBroker, changed: (userIds: readonly string[]) => void): void {
	onInvalidation(broker, (cache, keys) => {
		if (cache === audienceCache.name) changed(keys);
	});
}
