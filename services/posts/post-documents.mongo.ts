import { Collection, Document, OptionalUnlessRequiredId } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { definedFields } from "../../shared/persistence/mongo/documents";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { isDuplicateKey } from "../../shared/persistence/mongo/errors";
import {
	ActivityRow,
	CommentRow,
	detailFields,
	NewRecipient,
	noExpiry,
	ParticipantType,
	PostRow,
	RecipientRow,
	TagRow,
} from "./posts.rows";

/**
 * The posts domain on MongoDB: the SQL tables as collections, their columns as fields (an empty one
 * absent), `_id` for the key. Tags and recipients carry the post's created_time, is_private and
 * expires_at (which never change), as on SQL, so that a search or a feed reads one index newest first.
 */
export interface PostDocument {
	_id: string;
	author_id: string;
	is_private: boolean;
	context_id?: string;
	author_venue_id?: string;
	content: string;
	message_type: number;
	expiration_date?: number;
	expires_at: number;
	created_time: number;
	updated_time: number;
	content_created_time: number;
	content_updated_time: number;
	/** The free-form fields no query looks at (Url, ContentKey, ContentParameters). */
	details?: Partial<Record<(typeof detailFields)[number], string>>;
}

/** What a record that lists a post (a tag, a recipient, a timeline entry) copies of it, for the list indexes. */
export interface PostCopy {
	post_id: string;
	post_created_time: number;
	post_is_private: boolean;
	post_expires_at: number;
}

/** What a tag or a recipient copies of its post. */
export interface OfPost extends PostCopy {
	/** Orders the post's tags (recipients) added in the same millisecond. */
	position: number;
	/**
	 * The activity that announced its addition (CreateTag, CreatePostRecipient): a retry writes that one, never a second.
	 */
	activity_id?: string;
}

/**
 * An addition whose activity is not written yet: set with the record, taken off once the activity is
 * there. What a crash leaves marked, the posts service's sweep finishes (MongoPostsRepository.finishCutOff).
 */
export interface ActivityPending {
	activity_pending?: boolean;
	/** The activity's message, for the sweep. */
	activity_message?: string;
}

/** A tag; (post_id, name) is unique, name being the value in lower case. */
export interface TagDocument extends OfPost, ActivityPending {
	_id: string;
	name: string;
	value: string;
	tag_type: number;
	created_time: number;
	updated_time: number;
}

/** A recipient; (post_id, recipient_id) is unique (its `_id` is the server's). */
export interface RecipientDocument extends OfPost, ActivityPending {
	recipient_id: string;
	participant_type: ParticipantType;
	created_time: number;
}

/** An activity: a post's activities are in (created_time, _id) order, _id being an ordered GUID. */
export interface ActivityDocument {
	_id: string;
	post_id: string;
	message: string;
	created_time: number;
	/** Whose action it tells of, when another user's (a commenter's). */
	actor_id?: string;
}

export interface CommentDocument extends ActivityPending {
	_id: string;
	post_id: string;
	context_id?: string;
	author_id: string;
	author_venue_id?: string;
	content: string;
	content_created_time: number;
	created_time: number;
	updated_time: number;
	/** The activity written with it ("… commented"), so that a retry writes that one. */
	activity_id?: string;
}

/**
 * A post in a reader's home timeline (posts.schema.ts's timeline_entries); one per (reader, post, source), its `_id`
 * the server's.
 */
export interface TimelineEntryDocument extends PostCopy {
	owner_id: string;
	/** The key of the source that brought it (timeline-sources.ts). */
	source: string;
}

/**
 * A reader's timeline as stored (`_id` the reader): below `horizon` it may lack posts; the sources it was built for,
 * and their digest.
 */
export interface TimelineDocument {
	_id: string;
	horizon: number;
	sources_digest: string;
	sources: string[];
}

/** A source whose audience was too large to push to (`_id` its key): its readers pull it. */
export interface PulledSourceDocument {
	_id: string;
	marked_time: number;
}

/** Drops an index unless it is gone already (a step run again after its drop, or a collection never made). */
async function dropIndexUnlessGone(collection: Collection, name: string): Promise<void> {
	try {
		await collection.dropIndex(name);
	} catch (err) {
		// 26: NamespaceNotFound, 27: IndexNotFound.
		const code = (err as { code?: unknown }).code;
		if (code !== 26 && code !== 27) throw err;
	}
}

export const postsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description:
			"posts by privacy, author and context; tags and recipients unique per post, in order, and by name and recipient; activities and comments by post",
		apply: async db => {
			// The list indexes end with expires_at (as posts.schema.ts's version 2): a list's part tests expiry in the index.
			const posts = db.collection("posts");
			await posts.createIndex({ is_private: 1, created_time: 1, _id: 1, expires_at: 1 }, { name: "posts_by_privacy" });
			await posts.createIndex(
				{ author_id: 1, is_private: 1, created_time: 1, _id: 1, expires_at: 1 },
				{ name: "posts_by_author" },
			);
			await posts.createIndex(
				{ context_id: 1, is_private: 1, created_time: 1, _id: 1, expires_at: 1 },
				{ name: "posts_by_context" },
			);
			const tags = db.collection("post_tags");
			await tags.createIndex({ post_id: 1, name: 1 }, { name: "post_tags_key", unique: true });
			await tags.createIndex({ post_id: 1, created_time: 1, position: 1, _id: 1 }, { name: "post_tags_in_order" });
			await tags.createIndex(
				{ name: 1, post_is_private: 1, post_created_time: 1, post_id: 1, post_expires_at: 1 },
				{ name: "post_tags_by_name" },
			);
			const recipients = db.collection("post_recipients");
			await recipients.createIndex({ post_id: 1, recipient_id: 1 }, { name: "post_recipients_key", unique: true });
			await recipients.createIndex(
				{ post_id: 1, created_time: 1, position: 1, recipient_id: 1 },
				{ name: "post_recipients_in_order" },
			);
			await recipients.createIndex(
				{ recipient_id: 1, post_created_time: 1, post_id: 1, post_is_private: 1, post_expires_at: 1 },
				{ name: "post_recipients_by_recipient" },
			);
			await db
				.collection("post_activities")
				.createIndex({ post_id: 1, created_time: 1, _id: 1 }, { name: "post_activities_by_post" });
			await db
				.collection("comments")
				.createIndex({ post_id: 1, content_created_time: 1, _id: 1 }, { name: "comments_by_post" });
			// Sparse: only additions whose activity a crash may have cut off are in it, for the sweep.
			for (const name of ["post_tags", "post_recipients", "comments"])
				await db
					.collection(name)
					.createIndex({ activity_pending: 1, created_time: 1 }, { name: `${name}_activity_pending`, sparse: true });
		},
	},
	{
		version: 2,
		description: "home timelines written when a post is written, and a context's posts in one time order",
		apply: async db => {
			// A wall is one range in time order, privacy and expiry in the index (posts.schema.ts's version 3). Made before
			// the old one goes: walls never lack one.
			const posts = db.collection("posts");
			await posts.createIndex(
				{ context_id: 1, created_time: 1, _id: 1, is_private: 1, expires_at: 1 },
				{ name: "posts_by_context_in_time" },
			);
			await dropIndexUnlessGone(posts, "posts_by_context");
			// The entries' list and their key at once: a post's time never changes, so unique here is unique per (reader,
			// post, source), as SQL's primary key.
			// Privacy and expiry come last so that a page tests them in the index. timelines and pulled_sources are keyed by
			// _id.
			await db
				.collection("timeline_entries")
				.createIndex(
					{ owner_id: 1, post_created_time: -1, post_id: -1, source: 1, post_is_private: 1, post_expires_at: 1 },
					{ name: "timeline_entries_key", unique: true },
				);
		},
	},
	{
		version: 3,
		description: "one author's comments in time order",
		// What an export of one's data reads (posts.commentsBy), as posts.schema.ts's version 4.
		apply: async db => {
			await db
				.collection("comments")
				.createIndex({ author_id: 1, created_time: 1, _id: 1 }, { name: "comments_by_author" });
		},
	},
];

/** The domain's collections. */
export interface PostCollections {
	posts: Collection<PostDocument>;
	tags: Collection<TagDocument>;
	recipients: Collection<RecipientDocument>;
	activities: Collection<ActivityDocument>;
	comments: Collection<CommentDocument>;
	timelineEntries: Collection<TimelineEntryDocument>;
	timelines: Collection<TimelineDocument>;
	pulledSources: Collection<PulledSourceDocument>;
}

export function postCollections(store: MongoStore): PostCollections {
	return {
		posts: store.collection<PostDocument>("posts"),
		tags: store.collection<TagDocument>("post_tags"),
		recipients: store.collection<RecipientDocument>("post_recipients"),
		activities: store.collection<ActivityDocument>("post_activities"),
		comments: store.collection<CommentDocument>("comments"),
		timelineEntries: store.collection<TimelineEntryDocument>("timeline_entries"),
		timelines: store.collection<TimelineDocument>("timelines"),
		pulledSources: store.collection<PulledSourceDocument>("pulled_sources"),
	};
}

export function postDocumentOf(post: PostRow): PostDocument {
	const details = definedFields(Object.fromEntries(detailFields.map(field => [field, post[field]])));
	return definedFields({
		_id: post.Id,
		author_id: post.AuthorId,
		is_private: post.IsPrivate,
		context_id: post.ContextId,
		author_venue_id: post.AuthorVenueId,
		content: post.Content,
		message_type: post.MessageType,
		expiration_date: post.ExpirationDate,
		expires_at: post.ExpirationDate ?? noExpiry,
		created_time: post.CreatedTime,
		updated_time: post.UpdatedTime,
		content_created_time: post.ContentCreatedTime,
		content_updated_time: post.ContentUpdatedTime,
		details: Object.keys(details).length ? details : undefined,
	});
}

export function toPost(doc: PostDocument): PostRow {
	return definedFields({
		Id: doc._id,
		AuthorId: doc.author_id,
		IsPrivate: doc.is_private,
		ContextId: doc.context_id,
		AuthorVenueId: doc.author_venue_id,
		Content: doc.content,
		MessageType: doc.message_type,
		ExpirationDate: doc.expiration_date,
		CreatedTime: doc.created_time,
		UpdatedTime: doc.updated_time,
		ContentCreatedTime: doc.content_created_time,
		ContentUpdatedTime: doc.content_updated_time,
		...doc.details,
	});
}

/** What a tag or recipient of `post` copies of it, at `position`. */
export function ofPost(
	post: Pick<PostDocument, "_id" | "created_time" | "is_private" | "expires_at">,
	position: number,
	activityId?: string,
): OfPost {
	return definedFields({
		post_id: post._id,
		post_created_time: post.created_time,
		post_is_private: post.is_private,
		post_expires_at: post.expires_at,
		position,
		activity_id: activityId,
	});
}

export function tagDocumentOf(tag: TagRow, of: OfPost): TagDocument {
	return {
		_id: tag.Id,
		name: tag.Value.toLowerCase(),
		value: tag.Value,
		tag_type: tag.TagType,
		created_time: tag.CreatedTime,
		updated_time: tag.UpdatedTime,
		...of,
	};
}

export const toTag = (doc: TagDocument): TagRow => ({
	Id: doc._id,
	PostId: doc.post_id,
	TagType: doc.tag_type,
	Value: doc.value,
	CreatedTime: doc.created_time,
	UpdatedTime: doc.updated_time,
});

export function recipientDocumentOf(recipient: NewRecipient, createdTime: number, of: OfPost): RecipientDocument {
	return { recipient_id: recipient.id, participant_type: recipient.type, created_time: createdTime, ...of };
}

export const toRecipient = (doc: RecipientDocument): RecipientRow => ({
	PostId: doc.post_id,
	RecipientId: doc.recipient_id,
	ParticipantType: doc.participant_type,
	CreatedTime: doc.created_time,
});

export const toActivity = (doc: ActivityDocument): ActivityRow => ({
	Id: doc._id,
	PostId: doc.post_id,
	Message: doc.message,
	CreatedTime: doc.created_time,
	...(typeof doc.actor_id === "string" ? { ActorId: doc.actor_id } : {}),
});

export function commentDocumentOf(c: CommentRow, activityId?: string): CommentDocument {
	return definedFields({
		_id: c.Id,
		post_id: c.PostId,
		context_id: c.ContextId,
		author_id: c.AuthorId,
		author_venue_id: c.AuthorVenueId,
		content: c.Content,
		content_created_time: c.ContentCreatedTime,
		created_time: c.CreatedTime,
		updated_time: c.UpdatedTime,
		activity_id: activityId,
	});
}

export function toComment(doc: CommentDocument): CommentRow {
	return definedFields({
		Id: doc._id,
		PostId: doc.post_id,
		ContextId: doc.context_id,
		AuthorId: doc.author_id,
		AuthorVenueId: doc.author_venue_id,
		Content: doc.content,
		ContentCreatedTime: doc.content_created_time,
		CreatedTime: doc.created_time,
		UpdatedTime: doc.updated_time,
	});
}

/**
 * Inserts the documents unless their keys are there (the retry of a write cut off, or the former
 * store imported again): a duplicate key is "already there", any other failure is thrown.
 */
export async function insertUnlessThere<T extends Document>(
	collection: Collection<T>,
	docs: OptionalUnlessRequiredId<T>[],
): Promise<void> {
	if (docs.length === 0) return;
	try {
		await collection.insertMany(docs, { ordered: false });
	} catch (err) {
		// Unordered, every document was tried: each failure is one of writeErrors (one or several).
		const failed = [(err as { writeErrors?: unknown }).writeErrors ?? []].flat();
		if (!(failed.length ? failed.every(isDuplicateKey) : isDuplicateKey(err))) throw err;
	}
}
