import { fromJson, present } from "../../shared/persistence/sql/rows";
import { newOrderedGuid } from "../../shared/wire/guid";

/** A post's own fields, as its record names them. */
export interface PostRow {
	Id: string;
	AuthorId: string;
	IsPrivate: boolean;
	ContextId?: string;
	AuthorVenueId?: string;
	Content: string;
	MessageType: number;
	ExpirationDate?: number;
	Url?: string;
	ContentKey?: string;
	ContentParameters?: string;
	CreatedTime: number;
	UpdatedTime: number;
	ContentCreatedTime: number;
	ContentUpdatedTime: number;
}

/** What an edit of a post changes: a field left undefined stays, a null one is cleared. */
export interface PostEdit {
	Content?: string;
	Url?: string | null;
	ContentKey?: string | null;
	ContentParameters?: string | null;
}

/** A new post's tags, one per value, in its order (made as CreatePost makes them; the seed does the same). */
export function newTagRows(postId: string, values: readonly string[], now: number): TagRow[] {
	return values.map(Value => ({
		Id: newOrderedGuid(now),
		PostId: postId,
		TagType: 0,
		Value,
		CreatedTime: now,
		UpdatedTime: now,
	}));
}

export interface TagRow {
	Id: string;
	PostId: string;
	TagType: number;
	Value: string;
	CreatedTime: number;
	UpdatedTime: number;
}

export type ParticipantType = "User" | "Network";

/** A recipient to add: a user or a network, by id. */
export interface NewRecipient {
	id: string;
	type: ParticipantType;
}

export interface RecipientRow {
	PostId: string;
	RecipientId: string;
	ParticipantType: ParticipantType;
	CreatedTime: number;
}

export interface ActivityRow {
	Id: string;
	PostId: string;
	Message: string;
	CreatedTime: number;
	/** Whose action it tells of, when another user's (a commenter's): a reader who hides them does not get it. */
	ActorId?: string;
}

export interface CommentRow {
	Id: string;
	PostId: string;
	ContextId?: string;
	AuthorId: string;
	AuthorVenueId?: string;
	Content: string;
	ContentCreatedTime: number;
	CreatedTime: number;
	UpdatedTime: number;
}

/** What a page of posts embeds, by post id. */
export interface PostParts {
	tags: Map<string, TagRow[]>;
	recipients: Map<string, RecipientRow[]>;
	activities: Map<string, ActivityRow[]>;
	comments: Map<string, CommentRow[]>;
}

/** What one post record embeds. */
export interface PostEmbeds {
	tags: TagRow[];
	recipients: RecipientRow[];
	activities: ActivityRow[];
	comments: CommentRow[];
}

/** Each post's embeds out of a page's parts, by post id; a post with none has empty lists. */
export function embedsByPost(parts: PostParts, postIds: readonly string[]): Map<string, PostEmbeds> {
	const of = <T>(map: Map<string, T[]>, id: string) => map.get(id) ?? [];
	return new Map(
		postIds.map(id => [
			id,
			{
				tags: of(parts.tags, id),
				recipients: of(parts.recipients, id),
				activities: of(parts.activities, id),
				comments: of(parts.comments, id),
			},
		]),
	);
}

/** Posts past their ExpirationDate are no longer listed; "no expiry" is stored as the largest number. */
export const noExpiry = Number.MAX_SAFE_INTEGER;

/** The free-form fields kept as JSON in posts.details. */
export const detailFields = ["Url", "ContentKey", "ContentParameters"] as const;

/** The columns of a post (table alias `p`), named as its record's fields. */
export const postColumns = `p.id AS "Id", p.author_id AS "AuthorId", p.is_private AS "IsPrivate", p.context_id AS "ContextId", p.author_venue_id AS "AuthorVenueId",
	p.content AS "Content", p.message_type AS "MessageType", p.expiration_date AS "ExpirationDate", p.created_time AS "CreatedTime", p.updated_time AS "UpdatedTime",
	p.content_created_time AS "ContentCreatedTime", p.content_updated_time AS "ContentUpdatedTime", p.details AS "Details"`;

export const tagColumns = `id AS "Id", post_id AS "PostId", tag_type AS "TagType", value AS "Value", created_time AS "CreatedTime", updated_time AS "UpdatedTime"`;
export const recipientColumns = `post_id AS "PostId", recipient_id AS "RecipientId", participant_type AS "ParticipantType", created_time AS "CreatedTime"`;
export const activityColumns = `id AS "Id", post_id AS "PostId", message AS "Message", created_time AS "CreatedTime", actor_id AS "ActorId"`;
export const commentColumns = `id AS "Id", post_id AS "PostId", context_id AS "ContextId", author_id AS "AuthorId", author_venue_id AS "AuthorVenueId", content AS "Content",
	content_created_time AS "ContentCreatedTime", created_time AS "CreatedTime", updated_time AS "UpdatedTime"`;

/** A post as selected with `postColumns`: 0/1 back to a boolean, the JSON details spread, nulls dropped. */
export function postFromRow(row: Record<string, unknown>): PostRow {
	const { Details, IsPrivate, ...fields } = row;
	// Cast: the columns are named as PostRow's fields (postColumns), which a row read by SQL cannot tell TypeScript.
	return present({ ...fields, IsPrivate: Number(IsPrivate) === 1, ...fromJson(Details) }) as unknown as PostRow;
}

/** Rows grouped by their post, each group in the order the rows came. */
export function byPost<T extends { PostId: string }>(rows: T[]): Map<string, T[]> {
	const groups = new Map<string, T[]>();
	for (const row of rows) {
		const group = groups.get(row.PostId);
		if (group) group.push(row);
		else groups.set(row.PostId, [row]);
	}
	return groups;
}

/**
 * The embeds without the comments of `authors` (whom a reader hides), nor the activities telling of them: the shared
 * cached ones when there are none.
 */
export function withoutWordsOf(embeds: Map<string, PostEmbeds>, authors: readonly string[]): Map<string, PostEmbeds> {
	if (authors.length === 0) return embeds;
	const hidden = new Set(authors);
	const shown = ({ comments, activities, ...rest }: PostEmbeds): PostEmbeds => ({
		...rest,
		comments: comments.filter(c => !hidden.has(c.AuthorId)),
		activities: activities.filter(a => a.ActorId === undefined || !hidden.has(a.ActorId)),
	});
	return new Map([...embeds].map(([id, embed]) => [id, shown(embed)]));
}
