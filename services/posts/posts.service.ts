import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { periodicMixin } from "../../shared/persistence/periodic.mixin";
import { newOrderedGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { displayName } from "../../shared/profiles";
import { callerOf } from "../../shared/caller";
import { audienceOf } from "../../shared/audience";
import { readerOf } from "./reader";
import { Reader } from "./posts.sql";
import { RecordNames } from "./post-records";
import { checkContext, checkUnblocked } from "./post-context";
import { embedsOf, keepPost, visiblePostOf } from "./post-cache";
import { PostsRepository } from "./posts.repository";
import { MongoPostsRepository } from "./posts.mongo";
import { postsMongoMigrations } from "./post-documents.mongo";
import { keepPostList, searchSources } from "./kept-post-lists";
import { postSources, readerSourcesOf, recipientSource, sourceKey } from "./timeline-sources";
import { fanOutOf } from "./fan-out";
import { postsMigrations } from "./posts.schema";
import { postsLegacy } from "./posts.legacy";
import {
	commentAdded,
	commentDeleted,
	commentEdited,
	postCreated,
	postDeleted,
	postEdited,
	postRewritten,
	recipientAdded,
	recipientReached,
	tagAdded,
} from "./posts.changes";
import { editedBy, listedBy, postEditOf } from "./post-edits";
import { forgetAuthor } from "./forget-user";
import { changed } from "../../shared/changes/changes";
import { CommentRow, NewRecipient, newTagRows, ParticipantType, PostRow, withoutWordsOf } from "./posts.rows";
import { typedService } from "../../shared/implement";
import { postsOperations } from "../../shared/catalogue";

interface PostsMethods {
	visiblePost(ctx: Context, id: string): Promise<{ post: PostRow; viewer: Reader }>;
	authoredPost(ctx: Context, id: string): Promise<{ post: PostRow; viewer: Reader }>;
	postRecords(ctx: Context, posts: PostRow[], hidden: readonly string[]): Promise<Record<string, unknown>[]>;
	addRecipient(ctx: Context, postId: string, type: ParticipantType, id: string): Promise<Record<string, unknown>>;
	authoredComment(ctx: Context, id: string): Promise<{ post: PostRow; comment: CommentRow }>;
}

const { implement, define } = typedService<PostsMethods, WithRepository<RepositoryContract<PostsRepository>>>();

/**
 * Posts with their recipients, tags and activities (rows of their own, keyed so that an addition
 * happens once), and comments. Private posts exist only for their audience, in every read: the
 * queries themselves decide what a reader may see.
 */
export function postsService(config: PlazaConfig): ServiceSchema {
	// An addition still under way is younger than this (each of its writes is a call that times out before).
	const leaseMs = 2 * config.cluster.requestTimeoutMs;
	return define({
		name: "posts",
		mixins: [
			// What a crash cut off between writes (on MongoDB: an addition's activity) is finished at start and then every
			// lease.
			// Listed before the repository's mixin: Moleculer starts the last-listed mixin first, so the store is migrated by
			// then.
			periodicMixin<RepositoryContract<PostsRepository>>(
				leaseMs,
				"Finishing cut-off additions",
				async (repo, service) => {
					const finished = await repo.finishCutOff(Date.now() - leaseMs);
					if (finished) service.logger.info(`Finished ${finished} additions a crash had cut off before their activity`);
				},
				{ atStart: true },
			),
			repositoryMixin<RepositoryContract<PostsRepository>>(config.store, {
				domain: "posts",
				migrations: postsMigrations,
				create: db => new PostsRepository(db),
				mongo: { migrations: postsMongoMigrations, create: store => new MongoPostsRepository(store) },
				legacy: postsLegacy,
			}),
		],

		actions: {
			...implement(postsOperations.CreatePost, async function (ctx) {
				const { RecipientIds = [], Tags = [], ...fields } = ctx.params;
				await checkContext(ctx, fields.AuthorId, fields.ContextId);
				await checkUnblocked(ctx, fields.AuthorId, [...(fields.ContextId ? [fields.ContextId] : []), ...RecipientIds]);
				const context = fields.ContextId ? [fields.ContextId] : [];
				// One round of names: the recipients' kinds, and what the record shows of author and context.
				const names = await RecordNames.of(
					ctx,
					[fields.AuthorId, ...context, ...RecipientIds],
					[...context, ...RecipientIds],
				);
				const recipients = [...new Set(RecipientIds)].map(id => {
					const recipient = names.recipientOf(id);
					if (!recipient) throw failures.field("RecipientIds", "InvalidValue", `${id} is neither a user nor a network`);
					return recipient;
				});
				const now = Date.now();
				const post: PostRow = {
					Id: newOrderedGuid(now),
					...fields,
					CreatedTime: now,
					UpdatedTime: now,
					ContentCreatedTime: now,
					ContentUpdatedTime: now,
				};
				// Tags are unique per post whatever their case; the first spelling wins.
				const values = [...new Map(Tags.map(value => [value.toLowerCase(), value])).values()];
				const tags = newTagRows(post.Id, values, now);
				await this.repo.createPost(
					post,
					tags,
					recipients,
					await fanOutOf(ctx, postSources(post, recipients), config.timelinePushLimit),
				);
				const recipientRows = recipients.map(r => ({
					PostId: post.Id,
					RecipientId: r.id,
					ParticipantType: r.type,
					CreatedTime: now,
				}));
				const record = names.post(post, tags, recipientRows, [], []);
				await changed(ctx, postCreated(post, record, values, recipients));
				return record;
			}),

			...implement(postsOperations.FindPost, async function (ctx) {
				const { post, viewer } = await this.visiblePost(ctx, ctx.params.Id);
				const record = (await this.postRecords(ctx, [post], viewer.hidden))[0];
				keepPost(ctx, post, viewer);
				return record;
			}),

			...implement(postsOperations.UpdatePost, async function (ctx) {
				const { post, viewer } = await this.authoredPost(ctx, ctx.params.Id);
				const updated = await this.repo.updatePost(post.Id, postEditOf(ctx.params), await editedBy(ctx), Date.now());
				if (!updated) throw failures.notFound(`Post ${post.Id}`);
				// The old copies go first: the record that streams hear is read afresh (whole: streams check its authors).
				await changed(ctx, postRewritten(updated));
				const [record] = await this.postRecords(ctx, [updated], []);
				const { tags, recipients } = await listedBy(this.repo, updated);
				await changed(ctx, postEdited(updated, record, tags, recipients));
				return viewer.hidden.length ? (await this.postRecords(ctx, [updated], viewer.hidden))[0] : record;
			}),

			...implement(postsOperations.DeletePost, async function (ctx) {
				const { post, viewer } = await this.authoredPost(ctx, ctx.params.Id);
				const [record] = await this.postRecords(ctx, [post], viewer.hidden);
				const { tags, recipients } = await listedBy(this.repo, post);
				// Whose timelines hold it: its audience now (one who left it had the entries dropped with the source).
				const fanOut = await fanOutOf(ctx, postSources(post, recipients), config.timelinePushLimit);
				const owners = [...new Set(fanOut.entries.map(entry => entry.ownerId))];
				if (!(await this.repo.deletePost(post, owners))) throw failures.notFound(`Post ${post.Id}`);
				await changed(ctx, postDeleted(post, tags, recipients));
				return record;
			}),

			...implement(postsOperations.CreatePostRecipient, async function (ctx) {
				return this.addRecipient(ctx, ctx.params.PostId, ctx.params.ParticipantType, ctx.params.RecipientId);
			}),

			...implement(postsOperations.CreateNetworkRecipient, async function (ctx) {
				return this.addRecipient(ctx, ctx.params.PostId, "Network", ctx.params.NetworkId);
			}),

			...implement(postsOperations.AllPostRecipients, async function (ctx) {
				const { post } = await this.visiblePost(ctx, ctx.params.Id);
				const rows = await this.repo.recipients(post.Id, ctx.params);
				const of = (type: string) => rows.filter(r => r.ParticipantType === type).map(r => r.RecipientId);
				const names = await RecordNames.of(ctx, of("User"), of("Network"));
				return rows.map(r => names.recipient(r.ParticipantType, r.RecipientId));
			}),

			...implement(postsOperations.CreateTag, async function (ctx) {
				const { post } = await this.authoredPost(ctx, ctx.params.PostId);
				const { row } = await this.repo.addTag(post.Id, ctx.params.Value, ctx.params.TagType, Date.now());
				await changed(ctx, tagAdded(post, row));
				return row;
			}),

			...implement(postsOperations.SearchPostsByTag, async function (ctx) {
				// Every post's author is a user today: another AuthorType matches nothing.
				if (ctx.params.AuthorType && ctx.params.AuthorType.toLowerCase() !== "user") return [];
				const names = (ctx.params.TagNames ?? "")
					.split(",")
					.map(t => t.trim().toLowerCase())
					.filter(Boolean);
				const viewer = await readerOf(ctx);
				const posts = await this.repo.lists.searchByTag(viewer, names, ctx.params.ContextId, ctx.params);
				keepPostList(
					ctx,
					ctx.params,
					posts,
					viewer.admin ? undefined : viewer.userId,
					searchSources(viewer, names, ctx.params.ContextId),
				);
				return this.postRecords(ctx, posts, viewer.hidden);
			}),

			...implement(postsOperations.UserFeed, async function (ctx) {
				const me = ctx.params.UserId;
				const audience = await audienceOf(ctx, me);
				const sources = readerSourcesOf(me, audience);
				const posts = await this.repo.timelines.page(
					{ userId: me, admin: false, networks: audience.networks, hidden: audience.hidden },
					sources,
					ctx.params,
					audience.muted,
				);
				keepPostList(ctx, ctx.params, posts, me, sources.map(sourceKey));
				return this.postRecords(ctx, posts, audience.hidden);
			}),

			...implement(postsOperations.UserPosts, async function (ctx) {
				const names = await RecordNames.of(ctx, [ctx.params.UserId], []);
				if (!names.user(ctx.params.UserId)) throw failures.notFound(`User ${ctx.params.UserId}`);
				const viewer = await readerOf(ctx);
				const posts = await this.repo.lists.userPosts(viewer, ctx.params.UserId, ctx.params);
				return this.postRecords(ctx, posts, viewer.hidden);
			}),

			...implement(postsOperations.CreateComment, async function (ctx) {
				const { post } = await this.visiblePost(ctx, ctx.params.PostId);
				const names = await RecordNames.of(ctx, [ctx.params.AuthorId], []);
				const author = names.user(ctx.params.AuthorId);
				if (!author) throw failures.notFound(`User ${ctx.params.AuthorId}`);
				const now = Date.now();
				const comment: CommentRow = {
					Id: newOrderedGuid(now),
					PostId: post.Id,
					ContextId: post.ContextId,
					AuthorId: ctx.params.AuthorId,
					AuthorVenueId: author.DefaultVenueId,
					Content: ctx.params.Content,
					ContentCreatedTime: ctx.params.CreatedTime ?? now,
					CreatedTime: now,
					UpdatedTime: now,
				};
				await this.repo.addComment(comment, `${displayName(author) ?? "Someone"} commented`);
				const record = names.comment(comment);
				await changed(ctx, commentAdded(post, comment, record));
				return record;
			}),

			...implement(postsOperations.FindComment, async function (ctx) {
				const comment = await this.repo.findComment(ctx.params.Id);
				if (!comment) throw failures.notFound(`Comment ${ctx.params.Id}`);
				const { viewer } = await this.visiblePost(ctx, comment.PostId).catch(() => {
					throw failures.notFound(`Comment ${ctx.params.Id}`);
				});
				if (viewer.hidden.includes(comment.AuthorId)) throw failures.notFound(`Comment ${ctx.params.Id}`);
				return (await RecordNames.of(ctx, [comment.AuthorId], [])).comment(comment);
			}),

			...implement(postsOperations.UpdateComment, async function (ctx) {
				const { post, comment } = await this.authoredComment(ctx, ctx.params.Id);
				const updated = await this.repo.updateComment(comment.Id, ctx.params.Content, Date.now());
				if (!updated) throw failures.notFound(`Comment ${comment.Id}`);
				const record = (await RecordNames.of(ctx, [updated.AuthorId], [])).comment(updated);
				await changed(ctx, commentEdited(post, updated, record));
				return record;
			}),

			...implement(postsOperations.DeleteComment, async function (ctx) {
				const { post, comment } = await this.authoredComment(ctx, ctx.params.Id);
				const record = (await RecordNames.of(ctx, [comment.AuthorId], [])).comment(comment);
				if (!(await this.repo.deleteComment(comment.Id))) throw failures.notFound(`Comment ${comment.Id}`);
				await changed(ctx, commentDeleted(post, comment));
				return record;
			}),

			...implement(postsOperations.PostComments, async function (ctx) {
				const { post, viewer } = await this.visiblePost(ctx, ctx.params.PostId);
				const rows = await this.repo.comments(post.Id, ctx.params, viewer.hidden);
				const names = await RecordNames.of(
					ctx,
					rows.map(c => c.AuthorId),
					[],
				);
				return rows.map(c => names.comment(c));
			}),

			...implement(postsOperations.PostActivities, async function (ctx) {
				const { post, viewer } = await this.visiblePost(ctx, ctx.params.PostId);
				return this.repo.activities(post.Id, ctx.params, viewer.hidden);
			}),

			/** Internal: 404 unless the caller may see the post (media attached to posts follow their posts). */
			checkVisible: {
				visibility: "public",
				callers: ["media", "reports"],
				async handler(ctx: Context<{ postId: string }>) {
					await this.visiblePost(ctx, ctx.params.postId);
					return true;
				},
			},

			/** Internal: 404 unless the caller may see the post, 403 unless they wrote it (or are an admin). */
			checkAuthor: {
				visibility: "public",
				callers: ["media"],
				async handler(ctx: Context<{ postId: string }>) {
					await this.authoredPost(ctx, ctx.params.postId);
					return true;
				},
			},

			/**
			 * Internal: a page of the caller's own comments, oldest first, as FindComment answers them (an export's Comments).
			 * All of them, on posts the caller no longer sees too: one's own words are one's own data.
			 */
			commentsBy: {
				visibility: "public",
				callers: ["exports"],
				async handler(ctx: Context<{ Offset?: number; Limit?: number }>) {
					const me = callerOf(ctx)?.userId;
					if (!me) throw failures.forbidden("Comments are listed for their author: the administrator's key has none");
					const page = { Offset: Math.max(0, ctx.params.Offset ?? 0), Limit: Math.min(1000, ctx.params.Limit ?? 50) };
					const rows = await this.repo.commentsBy(me, page);
					const names = await RecordNames.of(ctx, [me], []);
					return rows.map(c => names.comment(c));
				},
			},

			/** Internal: removes what the posts domain holds of a deleted account (see forget-user.ts). */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					return forgetAuthor(ctx, this.repo, ctx.params.userId, config.timelinePushLimit);
				},
			},

			/** Internal: which of these posts the caller may see. */
			visibleAmong: {
				visibility: "public",
				callers: ["media"],
				async handler(ctx: Context<{ postIds: string[] }>) {
					return this.repo.visibleAmong(ctx.params.postIds, await readerOf(ctx));
				},
			},
		},

		methods: {
			/** The post, if the caller may see it; a private post the caller may not see does not exist (404). */
			async visiblePost(ctx: Context, id: string) {
				const viewer = await readerOf(ctx);
				const post = await visiblePostOf(ctx, this.repo, id, viewer);
				if (!post) throw failures.notFound(`Post ${id}`);
				return { post, viewer };
			},

			/** The post, if the caller is its author or an admin (403 for others who can see it), and the caller as its reader. */
			async authoredPost(ctx: Context, id: string) {
				const { post, viewer } = await this.visiblePost(ctx, id);
				if (!viewer.admin && post.AuthorId !== viewer.userId)
					throw failures.forbidden("Only the post's author may do this");
				return { post, viewer };
			},

			/** The comment, if the caller may see its post (else 404) and wrote it or is an admin (else 403). */
			async authoredComment(ctx: Context, id: string) {
				const comment = await this.repo.findComment(id);
				if (!comment) throw failures.notFound(`Comment ${id}`);
				const { post, viewer } = await this.visiblePost(ctx, comment.PostId).catch(() => {
					throw failures.notFound(`Comment ${id}`);
				});
				if (!viewer.admin && comment.AuthorId !== viewer.userId)
					throw failures.forbidden("Only the comment's author may do this");
				return { post, comment };
			},

			/**
			 * Post records for a page of posts (already checked visible): embeds cached or one query per embedded kind, and
			 * one round of names; no comment by a user the reader hides, nor an activity telling of one.
			 */
			async postRecords(ctx: Context, posts: PostRow[], hidden: readonly string[]) {
				if (posts.length === 0) return [];
				const cached = await embedsOf(
					ctx,
					this.repo,
					posts.map(p => p.Id),
				);
				const embeds = withoutWordsOf(cached, hidden);
				return (await RecordNames.forPosts(ctx, posts, embeds)).posts(posts, embeds);
			},

			async addRecipient(ctx: Context, postId: string, type: ParticipantType, id: string) {
				const { post } = await this.authoredPost(ctx, postId);
				await checkUnblocked(ctx, post.AuthorId, [id]);
				const names = await RecordNames.of(ctx, [id], [id]);
				const recipient: NewRecipient | undefined = names.recipientOf(id);
				if (!recipient || recipient.type !== type) throw failures.notFound(`${type} ${id}`);
				const record = names.recipient(type, id);
				// Added twice (even at once), a recipient is one row, and only the call that added it writes the activity.
				const fanOut = await fanOutOf(ctx, [recipientSource(recipient)], config.timelinePushLimit);
				await this.repo.addRecipient(
					post.Id,
					recipient,
					`${typeof record.DisplayName === "string" ? record.DisplayName : "A recipient"} was added`,
					Date.now(),
					fanOut,
				);
				await changed(ctx, recipientAdded(post, recipient));
				await changed(ctx, recipientReached(post, (await this.postRecords(ctx, [post], []))[0], recipient));
				return record;
			},
		},
	});
}
