import { CacheDrop, Changes } from "../../shared/changes/changes";
import { userKey } from "../../shared/streams/stream-event";
import { postCache, publicPostCache } from "./post-cache";
import { postListKeys, postListSources, recipientKey, tagKey } from "./kept-post-lists";
import { CommentRow, NewRecipient, PostRow, TagRow } from "./posts.rows";

/**
 * What each write of the posts domain changes (shared/changes/changes.ts carries it out): the post's
 * cached copies, the kept lists it joins, and what users' Server Events streams hear.
 */

/** Every posts node's copies of a post (a twin write that found its record there drops them too). */
const postCopies = (postId: string): CacheDrop[] => [
	{ cache: postCache, keys: [postId] },
	{ cache: publicPostCache, keys: [postId] },
];

/**
 * Whose words a post record shows: its author, then its embedded comments' authors (a stream hiding any of them does
 * not get it).
 */
function authorsOf(post: PostRow, record: unknown): string[] {
	const comments = (record as { Comments?: ReadonlyArray<{ AuthorId?: unknown }> } | undefined)?.Comments ?? [];
	return [post.AuthorId, ...comments.map(comment => String(comment.AuthorId))];
}

/**
 * A new post joins the lists of its sources, so their kept pages go, and reaches every stream that reads one of them
 * (a private one only its audience). One event does both: the sources are the same keys.
 */
export function postCreated(
	post: PostRow,
	record: unknown,
	tags: readonly string[],
	recipients: readonly NewRecipient[],
): Changes {
	const keys = postListKeys(post, tags, recipients);
	const readers = post.IsPrivate ? [post.AuthorId, ...recipients.map(r => r.id)] : undefined;
	return {
		domain: "posts",
		events: [
			{
				type: "Post",
				body: record,
				keys,
				readers,
				authors: authorsOf(post, record),
				drops: { cache: postListSources.name, keys },
			},
		],
	};
}

/** One more tag: searches for it may now show the post; its author's stream hears. */
export function tagAdded(post: PostRow, tag: TagRow): Changes {
	return {
		domain: "posts",
		drops: [...postCopies(post.Id), { cache: postListSources, keys: [tagKey(tag.Value)] }],
		events: [{ type: "Tag", body: tag, keys: [userKey(post.AuthorId)] }],
	};
}

/** A comment: the post's copies (they embed comments) go; the post's author's stream hears. */
export function commentAdded(post: PostRow, comment: CommentRow, record: unknown): Changes {
	return {
		domain: "posts",
		drops: postCopies(post.Id),
		events: [
			{ type: "Comment", body: record, keys: [userKey(post.AuthorId)], authors: [comment.AuthorId, post.AuthorId] },
		],
	};
}

/** One more recipient: lists of what reaches the recipient may now show the post (see recipientReached). */
export function recipientAdded(post: PostRow, recipient: NewRecipient): Changes {
	return {
		domain: "posts",
		drops: [...postCopies(post.Id), { cache: postListSources, keys: [recipientKey(recipient)] }],
	};
}

/**
 * The streams the post now reaches through that recipient alone hear it, with its record as read after
 * `recipientAdded` dropped the old copies.
 */
export function recipientReached(post: PostRow, record: unknown, recipient: NewRecipient): Changes {
	return {
		domain: "posts",
		events: [
			{
				type: "Post",
				body: record,
				keys: [recipientKey(recipient)],
				readers: post.IsPrivate ? [recipient.id] : undefined,
				authors: authorsOf(post, record),
			},
		],
	};
}

/** A post was edited or is about to be shown again: every posts node's copies of it go first (see postEdited). */
export function postRewritten(post: PostRow): Changes {
	return { domain: "posts", drops: postCopies(post.Id) };
}

/** An edited post: the kept lists it is in go, and the streams it reached hear its new record. */
export function postEdited(
	post: PostRow,
	record: unknown,
	tags: readonly string[],
	recipients: readonly NewRecipient[],
): Changes {
	return postCreated(post, record, tags, recipients);
}

/** A deleted post: its copies and the kept lists it was in go; the streams it reached hear `cmd.PostDeleted`. */
export function postDeleted(post: PostRow, tags: readonly string[], recipients: readonly NewRecipient[]): Changes {
	const { events = [] } = postCreated(post, { Id: post.Id }, tags, recipients);
	return {
		domain: "posts",
		drops: postCopies(post.Id),
		events: events.map(event => ({ ...event, type: "PostDeleted" as const })),
	};
}

/** An edited comment: the post's copies go; the post's and the comment's authors' streams hear it. */
export function commentEdited(post: PostRow, comment: CommentRow, record: unknown): Changes {
	return {
		domain: "posts",
		drops: postCopies(post.Id),
		events: [
			{
				type: "Comment",
				body: record,
				keys: [userKey(post.AuthorId), userKey(comment.AuthorId)],
				authors: [comment.AuthorId, post.AuthorId],
			},
		],
	};
}

/** A deleted comment: the post's copies go; the post's and the comment's authors' streams hear `cmd.CommentDeleted`. */
export function commentDeleted(post: PostRow, comment: CommentRow): Changes {
	return {
		domain: "posts",
		drops: postCopies(post.Id),
		events: [
			{
				type: "CommentDeleted",
				body: { Id: comment.Id, PostId: comment.PostId },
				keys: [userKey(post.AuthorId), userKey(comment.AuthorId)],
				authors: [comment.AuthorId, post.AuthorId],
			},
		],
	};
}
