import { SqlDatabase, SqlExecutor, SqlValue } from "../../shared/persistence/sql/database";
import { anchorOf, Page, pageOf } from "../../shared/persistence/sql/paging";
import { fromJson, present, toJson } from "../../shared/persistence/sql/rows";
import { failures } from "../../shared/errors";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { newOrderedGuid } from "../../shared/wire/guid";
import { PostLists, PostListsContract } from "./post-lists";
import {
	ActivityRow,
	activityColumns,
	byPost,
	CommentRow,
	commentColumns,
	detailFields,
	noExpiry,
	NewRecipient,
	PostEdit,
	PostParts,
	PostRow,
	postColumns,
	postFromRow,
	RecipientRow,
	recipientColumns,
	TagRow,
	tagColumns,
} from "./posts.rows";
import { insertMany, Params, Reader, visibleSql } from "./posts.sql";
import { FanOut, pushEntries, Timelines } from "./timelines.repository";

/** How many of its latest activities a post record carries; PostActivities pages through all. */
export const embeddedActivities = 20;
/** How many comments a post embeds (the first, oldest content first); PostComments pages through all. */
export const embeddedComments = 100;
/** How many tags and recipients a post record embeds (CreatePost takes at most 50 and 500). */
export const embeddedTags = 100;
export const embeddedRecipients = 500;

/** What a keyed write did: the row, and whether this call inserted it (only the inserting call writes the activity). */
export interface Keyed<T> {
	row: T;
	inserted: boolean;
}

/** A post as the former store held it, with what is now kept beside it. */
export interface LegacyPost {
	post: PostRow;
	tags: TagRow[];
	recipients: NewRecipient[];
	activities: ActivityRow[];
}

const expiresAt = (post: PostRow) => post.ExpirationDate ?? noExpiry;

const details = (post: PostRow) =>
	toJson(
		Object.fromEntries(detailFields.filter(field => post[field] !== undefined).map(field => [field, post[field]])),
	);

/**
 * Posts, their tags, recipients and activities (rows of their own, keyed by post and tag name, post
 * and recipient, so concurrent identical additions make one row and one activity), and comments.
 */
export class PostsRepository {
	readonly lists: PostListsContract;

	readonly timelines: RepositoryContract<Timelines>;

	constructor(private readonly db: SqlDatabase) {
		const lists = new PostLists(db);
		this.lists = lists;
		this.timelines = new Timelines(db, lists);
	}

	/** A post with its tags and recipients, and its entries in its audience's timelines, in one transaction. */
	async createPost(post: PostRow, tags: TagRow[], recipients: NewRecipient[], fanOut: FanOut): Promise<void> {
		await this.db.transaction(async tx => {
			await insertPost(tx, post, "");
			await insertTags(tx, post, tags, "");
			await insertRecipients(tx, post, recipients, post.CreatedTime, "");
			await pushEntries(tx, post, fanOut);
		});
	}

	/** A post of the former store, unless it is here already (each of its parts likewise). */
	async importPost({ post, tags, recipients, activities }: LegacyPost): Promise<void> {
		const unlessThere = " ON CONFLICT DO NOTHING";
		await this.db.transaction(async tx => {
			await insertPost(tx, post, unlessThere);
			await insertTags(tx, post, tags, unlessThere);
			await insertRecipients(tx, post, recipients, post.CreatedTime, unlessThere);
			for (const activity of activities) {
				await tx.run(
					"INSERT INTO post_activities (id, post_id, message, created_time) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING",
					[activity.Id, post.Id, activity.Message, activity.CreatedTime],
				);
			}
		});
	}

	/**
	 * What a crash between writes left to finish: nothing here, where each write is one transaction (the MongoDB
	 * repository has some).
	 */
	async finishCutOff(_before: number): Promise<number> {
		return 0;
	}

	/** A comment of the former store, unless it is here already. */
	async importComment(comment: CommentRow): Promise<void> {
		await insertComment(this.db, comment, " ON CONFLICT (id) DO NOTHING");
	}

	/** The post, if the reader may see it. */
	async visiblePost(id: string, reader: Reader): Promise<PostRow | undefined> {
		const params = new Params(this.db.dialect);
		params.add(id);
		const row = await this.db.get(
			`SELECT ${postColumns} FROM posts p WHERE p.id = $1 AND ${visibleSql(reader, params)}`,
			params.values,
		);
		return row && postFromRow(row);
	}

	/** Which of these posts the reader may see. */
	async visibleAmong(ids: string[], reader: Reader): Promise<string[]> {
		if (ids.length === 0) return [];
		const params = new Params(this.db.dialect);
		const among = params.anyOf("p.id", "ids", ids);
		return (
			await this.db.all<{ id: string }>(
				`SELECT p.id AS id FROM posts p WHERE ${among} AND ${visibleSql(reader, params)}`,
				params.values,
			)
		).map(r => r.id);
	}

	/**
	 * A tag on a post, unless the post has one of that name (any case): the tag, and whether this
	 * call added it, in which case its activity and the post's UpdatedTime are written with it.
	 */
	async addTag(postId: string, value: string, tagType: number, now: number): Promise<Keyed<TagRow>> {
		return this.db.transaction(async tx => {
			const name = value.toLowerCase();
			const row = await tx.get<TagRow>(
				`INSERT INTO post_tags (post_id, name, id, value, tag_type, position, created_time, updated_time, post_created_time, post_is_private, post_expires_at)
				 SELECT p.id, $2, $3, $4, CAST($5 AS INTEGER), (SELECT COALESCE(MAX(position) + 1, 0) FROM post_tags WHERE post_id = $1), CAST($6 AS BIGINT), CAST($6 AS BIGINT), p.created_time, p.is_private, p.expires_at
				 FROM posts p WHERE p.id = $1
				 ON CONFLICT (post_id, name) DO NOTHING RETURNING ${tagColumns}`,
				[postId, name, newOrderedGuid(now), value, tagType, now],
			);
			if (row) {
				await addActivity(tx, postId, `Tagged ${value}`, now);
				return { row, inserted: true };
			}
			const existing = await tx.get<TagRow>(`SELECT ${tagColumns} FROM post_tags WHERE post_id = $1 AND name = $2`, [
				postId,
				name,
			]);
			if (!existing) throw failures.notFound(`Post ${postId}`);
			return { row: existing, inserted: false };
		});
	}

	/**
	 * A recipient of a post unless it is one: whether this call added it (then with `message` as its activity, and the
	 * post in the timelines it now reaches).
	 */
	async addRecipient(
		postId: string,
		recipient: NewRecipient,
		message: string,
		now: number,
		fanOut: FanOut,
	): Promise<boolean> {
		return this.db.transaction(async tx => {
			const added = await tx.run(
				`INSERT INTO post_recipients (post_id, recipient_id, participant_type, position, created_time, post_created_time, post_is_private, post_expires_at)
				 SELECT p.id, $2, $3, (SELECT COALESCE(MAX(position) + 1, 0) FROM post_recipients WHERE post_id = $1), CAST($4 AS BIGINT), p.created_time, p.is_private, p.expires_at
				 FROM posts p WHERE p.id = $1
				 ON CONFLICT (post_id, recipient_id) DO NOTHING`,
				[postId, recipient.id, recipient.type, now],
			);
			if (added > 0) {
				await addActivity(tx, postId, message, now);
				const post = await tx.get<{ created_time: number; is_private: number; expires_at: number }>(
					"SELECT created_time, is_private, expires_at FROM posts WHERE id = $1",
					[postId],
				);
				if (post)
					await pushEntries(
						tx,
						{
							Id: postId,
							CreatedTime: Number(post.created_time),
							IsPrivate: !!post.is_private,
							ExpirationDate: Number(post.expires_at),
						},
						fanOut,
					);
			}
			return added > 0;
		});
	}

	/**
	 * An edit of a post's content and details, with `activity` as its activity, in one transaction: the post after it,
	 * or undefined (and nothing written) when there is no such post.
	 */
	async updatePost(id: string, edit: PostEdit, activity: string, now: number): Promise<PostRow | undefined> {
		return this.db.transaction(async tx => {
			const params = new Params(tx.dialect);
			const at = params.add(now);
			const sets = [`content_updated_time = ${at}`, `updated_time = ${at}`];
			if (edit.Content !== undefined) sets.push(`content = ${params.add(edit.Content)}`);
			// Updated first, so that on PostgreSQL the row is locked and the details merged below are the latest.
			const edited = await tx.get<{ details: string | null }>(
				`UPDATE posts SET ${sets.join(", ")} WHERE id = ${params.add(id)} RETURNING details`,
				params.values,
			);
			if (!edited) return undefined;
			await addActivity(tx, id, activity, now);
			if (detailFields.some(field => edit[field] !== undefined))
				await tx.run("UPDATE posts SET details = $2 WHERE id = $1", [id, editedDetails(edited.details, edit)]);
			// Read back rather than RETURNING: SQLite's RETURNING takes no table alias, which postColumns has.
			const row = await tx.get(`SELECT ${postColumns} FROM posts p WHERE p.id = $1`, [id]);
			return row && postFromRow(row);
		});
	}

	/**
	 * A post and everything of it, in one transaction: its entries in these owners' timelines (found by their key, the
	 * post's time and id), its tags, recipients, activities and comments. Whether the post was there.
	 */
	/** The oldest `limit` posts of an author, private or not (a deleted account's, removed a page at a time). */
	async postsBy(authorId: string, limit: number): Promise<PostRow[]> {
		const rows = await this.db.all(
			`SELECT ${postColumns} FROM posts p WHERE p.author_id = $1 ORDER BY p.created_time, p.id LIMIT $2`,
			[authorId, limit],
		);
		return rows.map(postFromRow);
	}

	/** A deleted account's own home timeline: its entries and its state. */
	async forgetTimeline(ownerId: string): Promise<void> {
		await this.db.transaction(async tx => {
			await tx.run("DELETE FROM timeline_entries WHERE owner_id = $1", [ownerId]);
			await tx.run("DELETE FROM timelines WHERE owner_id = $1", [ownerId]);
		});
	}

	async deletePost(post: PostRow, timelineOwners: readonly string[]): Promise<boolean> {
		return this.db.transaction(async tx => {
			if (timelineOwners.length) {
				const params = new Params(tx.dialect);
				const owners = params.anyOf("owner_id", "owners", timelineOwners);
				const [time, id] = [params.add(post.CreatedTime), params.add(post.Id)];
				await tx.run(
					`DELETE FROM timeline_entries WHERE ${owners} AND post_created_time = ${time} AND post_id = ${id}`,
					params.values,
				);
			}
			for (const table of ["post_tags", "post_recipients", "post_activities", "comments"])
				await tx.run(`DELETE FROM ${table} WHERE post_id = $1`, [post.Id]);
			return (await tx.run("DELETE FROM posts WHERE id = $1", [post.Id])) > 0;
		});
	}

	/** A comment and its activity, in one transaction. */
	async addComment(comment: CommentRow, message: string): Promise<void> {
		await this.db.transaction(async tx => {
			await insertComment(tx, comment, "");
			await addActivity(tx, comment.PostId, message, comment.CreatedTime, comment.AuthorId);
		});
	}

	async findComment(id: string): Promise<CommentRow | undefined> {
		const row = await this.db.get<CommentRow>(`SELECT ${commentColumns} FROM comments WHERE id = $1`, [id]);
		return row && present(row);
	}

	/** A comment's new content: the comment after, or undefined when there is none. */
	async updateComment(id: string, content: string, now: number): Promise<CommentRow | undefined> {
		const row = await this.db.get<CommentRow>(
			`UPDATE comments SET content = $2, updated_time = $3 WHERE id = $1 RETURNING ${commentColumns}`,
			[id, content, now],
		);
		return row && present(row);
	}

	/** Deletes a comment: what was deleted, or undefined when there was none. */
	async deleteComment(id: string): Promise<CommentRow | undefined> {
		const row = await this.db.get<CommentRow>(`DELETE FROM comments WHERE id = $1 RETURNING ${commentColumns}`, [id]);
		return row && present(row);
	}

	/** A page of a post's comments, oldest content first, none by `hiddenAuthors`; the cursor is a comment's Id. */
	async comments(postId: string, page: Page, hiddenAuthors: readonly string[] = []): Promise<CommentRow[]> {
		const list = {
			table: "comments",
			columns: commentColumns,
			owner: "post_id",
			time: "content_created_time",
			tiebreak: "id",
			excluded: { column: "author_id", values: hiddenAuthors },
		};
		return (await pageOf<CommentRow>(this.db, list, postId, page)).map(present);
	}

	/** A page of one author's comments, oldest first; the cursor is a comment's Id. */
	async commentsBy(authorId: string, page: Page): Promise<CommentRow[]> {
		const list = {
			table: "comments",
			columns: commentColumns,
			owner: "author_id",
			time: "created_time",
			tiebreak: "id",
		};
		return (await pageOf<CommentRow>(this.db, list, authorId, page)).map(present);
	}

	/**
	 * A page of a post's activities, in the order they happened, none telling of `hiddenActors`; the cursor is an
	 * activity's Id.
	 */
	async activities(postId: string, page: Page, hiddenActors: readonly string[] = []): Promise<ActivityRow[]> {
		if (page.Limit === 0) return [];
		const anchor = await anchorOf(
			this.db,
			page,
			"SELECT seq AS time, id FROM post_activities WHERE id = $1 AND post_id = $2",
			[postId],
		);
		const values: SqlValue[] = [postId, page.Limit, page.Offset, ...(anchor ? [anchor.time] : [])];
		const unhidden = hiddenActors.length
			? `AND (actor_id IS NULL OR NOT ${this.db.dialect.anyOf("actor_id", `$${values.push(this.db.dialect.listParam(hiddenActors))}`)})`
			: "";
		const rows = await this.db.all<ActivityRow>(
			`SELECT ${activityColumns} FROM post_activities WHERE post_id = $1 ${anchor ? "AND seq > $4" : ""} ${unhidden} ORDER BY seq LIMIT $2 OFFSET $3`,
			values,
		);
		return rows.map(present);
	}

	/** A page of a post's recipients, in the order they were added; the cursor is a recipient's Id. */
	async recipients(postId: string, page: Page): Promise<RecipientRow[]> {
		if (page.Limit === 0) return [];
		let after = "";
		const params: Array<string | number> = [postId, page.Limit, page.Offset];
		if (page.AfterId) {
			const anchor = await this.db.get<{ created_time: number; position: number }>(
				"SELECT created_time, position FROM post_recipients WHERE post_id = $1 AND recipient_id = $2",
				[postId, page.AfterId],
			);
			if (!anchor) throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
			after = "AND (created_time, position, recipient_id) > ($4, $5, $6)";
			params.push(Number(anchor.created_time), Number(anchor.position), page.AfterId);
		}
		return this.db.all<RecipientRow>(
			`SELECT ${recipientColumns} FROM post_recipients WHERE post_id = $1 ${after} ORDER BY created_time, position, recipient_id LIMIT $2 OFFSET $3`,
			params,
		);
	}

	/**
	 * What a page of posts embeds: tags, recipients, latest activities and first comments, each in
	 * one query for the whole page, top N per post. One post reads its comments and activities by
	 * LIMIT (a busy post may have many more than it shows).
	 */
	async parts(postIds: string[]): Promise<PostParts> {
		const empty: PostParts = { tags: new Map(), recipients: new Map(), activities: new Map(), comments: new Map() };
		if (postIds.length === 0) return empty;
		const list = this.db.dialect.listParam(postIds);
		const inPage = this.db.dialect.anyOf("post_id", "$1");
		const topPerPost = (columns: string, table: string, order: string, n: number) =>
			`SELECT ${columns} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY post_id ORDER BY ${order}) AS n FROM ${table} WHERE ${inPage}) AS ranked WHERE n <= ${n} ORDER BY post_id, ${order}`;
		const one = postIds.length === 1;
		const [tags, recipients, activities, comments] = await Promise.all([
			this.db.all<TagRow>(topPerPost(tagColumns, "post_tags", "created_time, position, id", embeddedTags), [list]),
			this.db.all<RecipientRow>(
				topPerPost(recipientColumns, "post_recipients", "created_time, position, recipient_id", embeddedRecipients),
				[list],
			),
			one
				? this.db
						.all<ActivityRow>(
							`SELECT ${activityColumns} FROM post_activities WHERE post_id = $1 ORDER BY seq DESC LIMIT ${embeddedActivities}`,
							[postIds[0]],
						)
						.then(rows => rows.reverse())
				: this.db.all<ActivityRow>(
						`SELECT ${activityColumns} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY post_id ORDER BY seq DESC) AS n FROM post_activities WHERE ${inPage}) AS ranked WHERE n <= ${embeddedActivities} ORDER BY post_id, seq`,
						[list],
					),
			one
				? this.db.all<CommentRow>(
						`SELECT ${commentColumns} FROM comments WHERE post_id = $1 ORDER BY content_created_time, id LIMIT ${embeddedComments}`,
						[postIds[0]],
					)
				: this.db.all<CommentRow>(
						topPerPost(commentColumns, "comments", "content_created_time, id", embeddedComments),
						[list],
					),
		]);
		return {
			tags: byPost(tags),
			recipients: byPost(recipients),
			activities: byPost(activities.map(present)),
			comments: byPost(comments.map(present)),
		};
	}
}

/** A post's details JSON with an edit's fields set (a string) or taken out (null). */
function editedDetails(current: string | null, edit: PostEdit): string | null {
	const fields = fromJson(current);
	for (const field of detailFields) {
		const value = edit[field];
		if (value === null) delete fields[field];
		else if (value !== undefined) fields[field] = value;
	}
	return toJson(fields);
}

async function insertPost(tx: SqlExecutor, post: PostRow, onConflict: string): Promise<void> {
	await tx.run(
		`INSERT INTO posts (id, author_id, is_private, context_id, author_venue_id, content, message_type, expiration_date, expires_at, created_time, updated_time, content_created_time, content_updated_time, details)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)${onConflict}`,
		[
			post.Id,
			post.AuthorId,
			post.IsPrivate,
			post.ContextId ?? null,
			post.AuthorVenueId ?? null,
			post.Content,
			post.MessageType,
			post.ExpirationDate ?? null,
			expiresAt(post),
			post.CreatedTime,
			post.UpdatedTime,
			post.ContentCreatedTime,
			post.ContentUpdatedTime,
			details(post),
		],
	);
}

async function insertTags(tx: SqlExecutor, post: PostRow, tags: TagRow[], onConflict: string): Promise<void> {
	if (tags.length === 0) return;
	const params = new Params(tx.dialect);
	const columns = [
		"post_id",
		"name",
		"id",
		"value",
		"tag_type",
		"position",
		"created_time",
		"updated_time",
		"post_created_time",
		"post_is_private",
		"post_expires_at",
	];
	const sql = insertMany(
		"post_tags",
		columns,
		tags,
		(t, i) => [
			post.Id,
			t.Value.toLowerCase(),
			t.Id,
			t.Value,
			t.TagType,
			i,
			t.CreatedTime,
			t.UpdatedTime,
			post.CreatedTime,
			post.IsPrivate,
			expiresAt(post),
		],
		onConflict,
		params,
	);
	await tx.run(sql, params.values);
}

async function insertRecipients(
	tx: SqlExecutor,
	post: PostRow,
	recipients: NewRecipient[],
	now: number,
	onConflict: string,
): Promise<void> {
	if (recipients.length === 0) return;
	const params = new Params(tx.dialect);
	const columns = [
		"post_id",
		"recipient_id",
		"participant_type",
		"position",
		"created_time",
		"post_created_time",
		"post_is_private",
		"post_expires_at",
	];
	const sql = insertMany(
		"post_recipients",
		columns,
		recipients,
		(r, i) => [post.Id, r.id, r.type, i, now, post.CreatedTime, post.IsPrivate, expiresAt(post)],
		onConflict,
		params,
	);
	await tx.run(sql, params.values);
}

async function insertComment(db: SqlExecutor, c: CommentRow, onConflict: string): Promise<void> {
	await db.run(
		`INSERT INTO comments (id, post_id, context_id, author_id, author_venue_id, content, content_created_time, created_time, updated_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)${onConflict}`,
		[
			c.Id,
			c.PostId,
			c.ContextId ?? null,
			c.AuthorId,
			c.AuthorVenueId ?? null,
			c.Content,
			c.ContentCreatedTime,
			c.CreatedTime,
			c.UpdatedTime,
		],
	);
}

/**
 * An activity on a post (telling of `actorId`'s action, when another user's), and the post's UpdatedTime: written only
 * by the call whose change happened.
 */
async function addActivity(
	tx: SqlExecutor,
	postId: string,
	message: string,
	now: number,
	actorId: string | null = null,
): Promise<void> {
	await tx.run(
		"INSERT INTO post_activities (id, post_id, message, created_time, actor_id) VALUES ($1, $2, $3, $4, $5)",
		[newOrderedGuid(now), postId, message, now, actorId],
	);
	await tx.run("UPDATE posts SET updated_time = $2 WHERE id = $1", [postId, now]);
}
