import { Collection, Document, Filter } from "mongodb";
import { failures } from "../../shared/errors";
import { newOrderedGuid } from "../../shared/wire/guid";
import { Page } from "../../shared/persistence/sql/paging";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { isDuplicateKey, upsertOnce } from "../../shared/persistence/mongo/errors";
import { pageOfList } from "../../shared/persistence/mongo/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import {
	embeddedActivities,
	embeddedComments,
	embeddedRecipients,
	embeddedTags,
	Keyed,
	LegacyPost,
	PostsRepository,
} from "./posts.repository";
import { PostListsContract } from "./post-lists";
import {
	ActivityRow,
	byPost,
	CommentRow,
	detailFields,
	NewRecipient,
	PostEdit,
	PostParts,
	PostRow,
	RecipientRow,
	TagRow,
} from "./posts.rows";
import { Reader } from "./posts.sql";
import {
	ActivityPending,
	CommentDocument,
	commentDocumentOf,
	insertUnlessThere,
	OfPost,
	ofPost,
	PostCollections,
	postCollections,
	PostDocument,
	postDocumentOf,
	RecipientDocument,
	recipientDocumentOf,
	TagDocument,
	tagDocumentOf,
	toActivity,
	toComment,
	toPost,
	toRecipient,
	toTag,
} from "./post-documents.mongo";
import { MongoPostLists } from "./post-lists.mongo";
import { visiblePosts } from "./post-visibility.mongo";
import { MongoTimelines, pushEntries } from "./timelines.mongo";
import { FanOut, Timelines } from "./timelines.repository";

/** What a tag or recipient copies of its post. */
const copied = { created_time: 1, is_private: 1, expires_at: 1 } as const;

/**
 * Posts on MongoDB: what `PostsRepository` does on SQL, without transactions. Tags and recipients
 * are documents keyed by (post, name) and (post, recipient), so concurrent identical additions make
 * one; each write is ordered so that what a crash leaves is invisible or completed by the call again.
 */
export class MongoPostsRepository implements RepositoryContract<PostsRepository> {
	readonly lists: PostListsContract;

	readonly timelines: RepositoryContract<Timelines>;

	private readonly c: PostCollections;

	constructor(store: MongoStore) {
		this.c = postCollections(store);
		const lists = new MongoPostLists(this.c);
		this.lists = lists;
		this.timelines = new MongoTimelines(this.c, lists);
	}

	/**
	 * A post with its tags, recipients and timeline entries: these first, the post last. Until the
	 * post is there, no id finds it and no list shows it (lists and timelines keep only posts that are
	 * there), so nobody sees it half made, and whoever may see it sees it whole; a call cut off is
	 * completed by the same call again (what is there already is kept).
	 */
	async createPost(post: PostRow, tags: TagRow[], recipients: NewRecipient[], fanOut: FanOut): Promise<void> {
		const doc = postDocumentOf(post);
		await Promise.all([this.partsOf(doc, tags, recipients), pushEntries(this.c, doc, fanOut)]);
		await insertUnlessThere(this.c.posts, [doc]);
	}

	/** A post of the former store, unless it is here already (each of its parts likewise), in createPost's order. */
	async importPost({ post, tags, recipients, activities }: LegacyPost): Promise<void> {
		const doc = postDocumentOf(post);
		await Promise.all([
			this.partsOf(doc, tags, recipients),
			insertUnlessThere(
				this.c.activities,
				activities.map(a => ({ _id: a.Id, post_id: post.Id, message: a.Message, created_time: a.CreatedTime })),
			),
		]);
		await insertUnlessThere(this.c.posts, [doc]);
	}

	async importComment(comment: CommentRow): Promise<void> {
		await insertUnlessThere(this.c.comments, [commentDocumentOf(comment)]);
	}

	async visiblePost(id: string, reader: Reader): Promise<PostRow | undefined> {
		const [doc] = await visiblePosts(this.c, [id], reader);
		return doc && toPost(doc);
	}

	async visibleAmong(ids: string[], reader: Reader): Promise<string[]> {
		const visible = new Set((await visiblePosts(this.c, ids, reader, { _id: 1 })).map(doc => doc._id));
		return [...new Set(ids)].filter(id => visible.has(id));
	}

	/**
	 * A tag unless the post has one of that name (any case): of concurrent identical calls, the one
	 * whose insert gets the key added it. The tag carries the id of its activity, written after it:
	 * every call that finds the tag writes that activity unless it is there, so a call cut off between
	 * the two is completed by the next, and there is never a second one.
	 */
	async addTag(postId: string, value: string, tagType: number, now: number): Promise<Keyed<TagRow>> {
		const post = await this.c.posts.findOne({ _id: postId }, { projection: copied });
		if (!post) throw failures.notFound(`Post ${postId}`);
		const row: TagRow = {
			Id: newOrderedGuid(now),
			PostId: postId,
			TagType: tagType,
			Value: value,
			CreatedTime: now,
			UpdatedTime: now,
		};
		const tag = pending(
			tagDocumentOf(row, ofPost(post, await nextPosition(this.c.tags, postId), newOrderedGuid(now))),
			`Tagged ${value}`,
		);
		const { doc, inserted } = await this.keyed(this.c.tags, tag, { post_id: postId, name: tag.name });
		await this.writeActivity(this.c.tags, doc, `Tagged ${doc.value}`);
		return { row: toTag(doc), inserted };
	}

	/**
	 * A recipient unless the post has it: as addTag, the one call that inserted it added it, and its
	 * activity is written once. The post goes into the timelines the recipient reaches after the
	 * recipient (an entry before it would show a private post to whom it is not yet addressed) and
	 * before the activity: while the addition is marked unfinished, the same call again pushes them.
	 */
	async addRecipient(
		postId: string,
		recipient: NewRecipient,
		message: string,
		now: number,
		fanOut: FanOut,
	): Promise<boolean> {
		const post = await this.c.posts.findOne({ _id: postId }, { projection: copied });
		if (!post) return false;
		const added = pending(
			recipientDocumentOf(
				recipient,
				now,
				ofPost(post, await nextPosition(this.c.recipients, postId), newOrderedGuid(now)),
			),
			message,
		);
		const { doc, inserted } = await this.keyed(this.c.recipients, added, {
			post_id: postId,
			recipient_id: recipient.id,
		});
		if (inserted || doc.activity_pending) await pushEntries(this.c, post, fanOut);
		await this.writeActivity(this.c.recipients, doc, message);
		return inserted;
	}

	/**
	 * An edit of a post, then its activity: the post after it, or undefined (and nothing written) when there is none. A
	 * crash between the two leaves the edit without its activity.
	 */
	async updatePost(id: string, edit: PostEdit, activity: string, now: number): Promise<PostRow | undefined> {
		const set: Document = { content_updated_time: now, updated_time: now };
		const unset: Document = {};
		if (edit.Content !== undefined) set.content = edit.Content;
		for (const field of detailFields) {
			const value = edit[field];
			if (value === null) unset[`details.${field}`] = "";
			else if (value !== undefined) set[`details.${field}`] = value;
		}
		const doc = await this.c.posts.findOneAndUpdate(
			{ _id: id },
			{ $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) },
			{ returnDocument: "after" },
		);
		if (!doc) return undefined;
		await this.c.activities.insertOne({ _id: newOrderedGuid(now), post_id: id, message: activity, created_time: now });
		return toPost(doc);
	}

	/**
	 * A post and everything of it: its entries in these owners' timelines first (by their key), then the post (no read
	 * finds it from then on), then its tags, recipients, activities and comments, which a second call finishes even when
	 * the post is gone. Whether the post was there.
	 */
	async postsBy(authorId: string, limit: number): Promise<PostRow[]> {
		const docs = await this.c.posts
			.find({ author_id: authorId })
			.sort({ created_time: 1, _id: 1 })
			.limit(limit)
			.toArray();
		return docs.map(toPost);
	}

	/** The entries first: a timeline state without entries is rebuilt at its next read, never wrong. */
	async forgetTimeline(ownerId: string): Promise<void> {
		await this.c.timelineEntries.deleteMany({ owner_id: ownerId });
		await this.c.timelines.deleteOne({ _id: ownerId });
	}

	async deletePost(post: PostRow, timelineOwners: readonly string[]): Promise<boolean> {
		if (timelineOwners.length)
			await this.c.timelineEntries.deleteMany({
				owner_id: { $in: [...timelineOwners] },
				post_created_time: post.CreatedTime,
				post_id: post.Id,
			});
		const { deletedCount } = await this.c.posts.deleteOne({ _id: post.Id });
		const ofIt = { post_id: post.Id };
		await Promise.all([
			this.c.tags.deleteMany(ofIt),
			this.c.recipients.deleteMany(ofIt),
			this.c.activities.deleteMany(ofIt),
			this.c.comments.deleteMany(ofIt),
		]);
		return deletedCount > 0;
	}

	/** A comment, then its activity (whose id it carries: the same call again completes it, as for tags). */
	async addComment(comment: CommentRow, message: string): Promise<void> {
		const { doc } = await this.keyed(
			this.c.comments,
			pending(commentDocumentOf(comment, newOrderedGuid(comment.CreatedTime)), message),
			{ _id: comment.Id },
		);
		await this.writeActivity(this.c.comments, doc, message);
	}

	async findComment(id: string): Promise<CommentRow | undefined> {
		const doc = await this.c.comments.findOne({ _id: id });
		return doc ? toComment(doc) : undefined;
	}

	async updateComment(id: string, content: string, now: number): Promise<CommentRow | undefined> {
		const doc = await this.c.comments.findOneAndUpdate(
			{ _id: id },
			{ $set: { content, updated_time: now } },
			{ returnDocument: "after" },
		);
		return doc ? toComment(doc) : undefined;
	}

	async deleteComment(id: string): Promise<CommentRow | undefined> {
		const doc = await this.c.comments.findOneAndDelete({ _id: id });
		return doc ? toComment(doc) : undefined;
	}

	/** A page of a post's comments, oldest content first; the cursor is a comment's Id. */
	async comments(postId: string, page: Page, hiddenAuthors: readonly string[] = []): Promise<CommentRow[]> {
		const filter = { post_id: postId, ...(hiddenAuthors.length ? { author_id: { $nin: [...hiddenAuthors] } } : {}) };
		return (await pageOfList(this.c.comments, page, filter, { time: "content_created_time" })).map(toComment);
	}

	async commentsBy(authorId: string, page: Page): Promise<CommentRow[]> {
		return (await pageOfList(this.c.comments, page, { author_id: authorId }, { time: "created_time" })).map(toComment);
	}

	/**
	 * A page of a post's activities, in the order they happened (time, then ordered Id); the cursor is an activity's Id.
	 */
	async activities(postId: string, page: Page, hiddenActors: readonly string[] = []): Promise<ActivityRow[]> {
		// $nin matches the activities that name no actor too.
		const filter = { post_id: postId, ...(hiddenActors.length ? { actor_id: { $nin: [...hiddenActors] } } : {}) };
		return (await pageOfList(this.c.activities, page, filter, { time: "created_time" })).map(toActivity);
	}

	/** A page of a post's recipients, in the order they were added; the cursor is a recipient's Id. */
	async recipients(postId: string, page: Page): Promise<RecipientRow[]> {
		if (page.Limit === 0) return [];
		let after: Filter<RecipientDocument> = {};
		if (page.AfterId) {
			const anchor = await this.c.recipients.findOne(
				{ post_id: postId, recipient_id: page.AfterId },
				{ projection: { created_time: 1, position: 1 } },
			);
			if (!anchor) throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
			const { created_time: time, position } = anchor;
			after = {
				$or: [
					{ created_time: { $gt: time } },
					{ created_time: time, position: { $gt: position } },
					{ created_time: time, position, recipient_id: { $gt: page.AfterId } },
				],
			};
		}
		const docs = await this.c.recipients
			.find({ post_id: postId, ...after })
			.sort({ created_time: 1, position: 1, recipient_id: 1 })
			.skip(page.Offset)
			.limit(page.Limit)
			.toArray();
		return docs.map(toRecipient);
	}

	/**
	 * What a page of posts embeds: for each post, its first (or latest) N of each kind, one query per post and kind, each
	 * cut by its index.
	 */
	async parts(postIds: string[]): Promise<PostParts> {
		const ids = [...new Set(postIds)];
		const perPost = async <T>(read: (id: string) => Promise<T[]>) => (await Promise.all(ids.map(read))).flat();
		const [tags, recipients, activities, comments] = await Promise.all([
			perPost(id =>
				this.c.tags.find({ post_id: id }).sort({ created_time: 1, position: 1, _id: 1 }).limit(embeddedTags).toArray(),
			),
			perPost(id =>
				this.c.recipients
					.find({ post_id: id })
					.sort({ created_time: 1, position: 1, recipient_id: 1 })
					.limit(embeddedRecipients)
					.toArray(),
			),
			perPost(async id =>
				(
					await this.c.activities
						.find({ post_id: id })
						.sort({ created_time: -1, _id: -1 })
						.limit(embeddedActivities)
						.toArray()
				).reverse(),
			),
			perPost(id =>
				this.c.comments
					.find({ post_id: id })
					.sort({ content_created_time: 1, _id: 1 })
					.limit(embeddedComments)
					.toArray(),
			),
		]);
		return {
			tags: byPost(tags.map(toTag)),
			recipients: byPost(recipients.map(toRecipient)),
			activities: byPost(activities.map(toActivity)),
			comments: byPost(comments.map(toComment)),
		};
	}

	/** A post's tags and recipients, unless there already; they copy the post's time, privacy and expiry. */
	private async partsOf(post: PostDocument, tags: TagRow[], recipients: NewRecipient[]): Promise<void> {
		await Promise.all([
			insertUnlessThere(
				this.c.tags,
				tags.map((tag, i) => tagDocumentOf(tag, ofPost(post, i))),
			),
			insertUnlessThere(
				this.c.recipients,
				recipients.map((recipient, i) => recipientDocumentOf(recipient, post.created_time, ofPost(post, i))),
			),
		]);
	}

	/**
	 * Inserts `doc` unless a document has its key (`key` selects it): the document kept, and whether this call inserted
	 * it.
	 */
	private async keyed<T extends TagDocument | RecipientDocument | CommentDocument>(
		collection: Collection<T>,
		doc: T,
		key: Filter<T>,
	): Promise<{ doc: T; inserted: boolean }> {
		try {
			await collection.insertOne(doc as Parameters<Collection<T>["insertOne"]>[0]);
			return { doc, inserted: true };
		} catch (err) {
			if (!isDuplicateKey(err)) throw err;
		}
		const kept = await collection.findOne(key);
		if (!kept) throw failures.notFound(`Post ${doc.post_id}`);
		return { doc: kept as T, inserted: false };
	}

	/**
	 * Writes the activities of additions a crash cut off before them (marked `activity_pending` and
	 * made before `before`, so none still under way), as the calls retried would: how many. The posts
	 * service runs it at start and then every lease.
	 */
	async finishCutOff(before: number): Promise<number> {
		const cutOff = { activity_pending: true, created_time: { $lt: before } };
		const finish = async <T extends PendingAddition>(collection: Collection<T>) => {
			const found = (await collection
				.find(cutOff as Filter<T>)
				.limit(100)
				.toArray()) as T[];
			for (const doc of found) await this.writeActivity(collection, doc, doc.activity_message ?? "");
			return found.length;
		};
		return (await finish(this.c.tags)) + (await finish(this.c.recipients)) + (await finish(this.c.comments));
	}

	/**
	 * The activity of an addition, under the id its document carries, unless it is there; then the
	 * post's UpdatedTime, never moved back (a retry, or a slower twin, leaves it as it is); then the
	 * addition's mark taken off. A tag or recipient added with its post, or imported, carries none and
	 * has none, as on SQL.
	 */
	private async writeActivity<T extends PendingAddition>(
		collection: Collection<T>,
		doc: T,
		message: string,
	): Promise<void> {
		if (!doc.activity_id) return;
		const activityId = doc.activity_id;
		// A comment's activity tells of its author.
		const actor = "author_id" in doc ? { actor_id: doc.author_id } : {};
		await upsertOnce(() =>
			this.c.activities.updateOne(
				{ _id: activityId },
				{ $setOnInsert: { post_id: doc.post_id, message, created_time: doc.created_time, ...actor } },
				{ upsert: true },
			),
		);
		await this.c.posts.updateOne({ _id: doc.post_id }, { $max: { updated_time: doc.created_time } });
		const done: Document = { $unset: { activity_pending: "", activity_message: "" } };
		if (doc.activity_pending) await collection.updateOne({ _id: doc._id } as Filter<T>, done);
	}
}

/** A tag, recipient or comment whose addition writes an activity. */
type PendingAddition = (TagDocument | RecipientDocument | CommentDocument) & { _id?: unknown };

/** An addition marked as waiting for its activity, with the activity's message. */
const pending = <T extends ActivityPending>(doc: T, message: string): T => ({
	...doc,
	activity_pending: true,
	activity_message: message,
});

/**
 * The position a tag or recipient added now takes: one past the last in the post's order, so that of
 * those added in the same millisecond it comes after (SQL takes one past the highest; both order alike).
 */
async function nextPosition<T extends OfPost & { created_time: number }>(
	collection: Collection<T>,
	postId: string,
): Promise<number> {
	const [last] = await collection
		.find({ post_id: postId } as Filter<T>, { projection: { position: 1 } })
		.sort({ created_time: -1, position: -1 })
		.limit(1)
		.toArray();
	return last ? last.position + 1 : 0;
}
