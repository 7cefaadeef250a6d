import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { pageOf } from "../../shared/persistence/documents";
import { Doc, Query } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { displayName, profilesOf } from "../../shared/profiles";
import { canSee, unexpired, Viewer, viewerOf, visibleTo } from "./visibility";
import { embeddedComments, Names, parseRecipientKey } from "./post-records";
import { readCall } from "../../shared/calls";

type Page = { Offset: number; Limit: number };
type PostsStores = CollectionsMethods<"posts" | "comments">;
type PostsThis = Service & PostsStores & PostsMethods;

interface CreatePostInput {
	AuthorId: string;
	Content: string;
	IsPrivate: boolean;
	ExpirationDate?: number;
	RecipientIds?: string[];
	Tags?: string[];
	[field: string]: unknown;
}

interface PostsMethods {
	visiblePost(ctx: Context, id: string, viewer?: Viewer): Promise<{ post: Doc; viewer: Viewer }>;
	authoredPost(ctx: Context, id: string): Promise<Doc>;
	postRecords(ctx: Context, docs: Doc[]): Promise<Record<string, unknown>[]>;
	addRecipient(ctx: Context, postId: string, type: string, id: string): Promise<Record<string, unknown>>;
	recipientKeys(ctx: Context, ids: string[]): Promise<string[]>;
	activity(postId: string, message: string): Promise<void>;
}

/** Latest first, the id breaking ties, so pages never overlap or skip. */
const newestFirst = ["-CreatedTime", "-_id"];
/** Comments read oldest content first (SPEC.md §4.2 CreateComment). */
const conversationOrder = ["ContentCreatedTime", "_id"];
const noExpiry = Number.MAX_SAFE_INTEGER;

/**
 * Posts with their recipients, tags and activities (kept on the post document, so each change is
 * one atomic update), and comments in a collection of their own. Private posts exist only for
 * their audience, in every read.
 */
export function postsService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, PostsMethods, PostsStores> = {
		name: "posts",
		mixins: [
			collectionsMixin(config.store, {
				posts: [{ field: "TagNames" }, { field: "AuthorId" }, { field: "ContextId" }, { field: "Audience" }, { field: "CreatedTime" }],
				comments: [{ field: "PostId" }],
			}),
		],

		actions: {
			async create(this: PostsThis, ctx: Context<CreatePostInput>) {
				const { RecipientIds = [], Tags = [], ExpirationDate, ...fields } = ctx.params;
				const recipients = await this.recipientKeys(ctx, RecipientIds);
				const now = Date.now();
				const tags = [...new Map(Tags.map(value => [value.toLowerCase(), value])).values()];
				const doc: Doc = {
					_id: newGuid(),
					...fields,
					ExpirationDate,
					ExpiresAt: ExpirationDate ?? noExpiry,
					AuthorType: "User",
					Recipients: recipients,
					Audience: recipients.map(key => parseRecipientKey(key).id),
					Tags: tags.map(Value => ({ Id: newGuid(), TagType: 0, Value, CreatedTime: now, UpdatedTime: now })),
					TagNames: tags.map(t => t.toLowerCase()),
					Activities: [],
					CreatedTime: now,
					UpdatedTime: now,
					ContentCreatedTime: now,
					ContentUpdatedTime: now,
				};
				await this.stores.posts.insert(doc);
				return (await this.postRecords(ctx, [doc]))[0];
			},

			async find(this: PostsThis, ctx: Context<{ Id: string }>) {
				const { post } = await this.visiblePost(ctx, ctx.params.Id);
				return (await this.postRecords(ctx, [post]))[0];
			},

			async addRecipient(this: PostsThis, ctx: Context<{ PostId: string; RecipientId: string; ParticipantType: string }>) {
				return this.addRecipient(ctx, ctx.params.PostId, ctx.params.ParticipantType, ctx.params.RecipientId);
			},

			async addNetworkRecipient(this: PostsThis, ctx: Context<{ PostId: string; NetworkId: string }>) {
				return this.addRecipient(ctx, ctx.params.PostId, "Network", ctx.params.NetworkId);
			},

			async recipients(this: PostsThis, ctx: Context<{ Id: string } & Page>) {
				const { post } = await this.visiblePost(ctx, ctx.params.Id);
				const keys = ((post.Recipients as string[]) ?? []).slice(ctx.params.Offset, ctx.params.Offset + ctx.params.Limit);
				const names = await Names.of(ctx, keys.map(k => parseRecipientKey(k).id), keys.map(k => parseRecipientKey(k).id));
				return keys.map(key => names.recipient(key));
			},

			async addTag(this: PostsThis, ctx: Context<{ PostId: string; Value: string; TagType: number }>) {
				const post = await this.authoredPost(ctx, ctx.params.PostId);
				const existing = ((post.Tags as Array<Record<string, unknown>>) ?? []).find(t => String(t.Value).toLowerCase() === ctx.params.Value.toLowerCase());
				if (existing) return { ...existing, PostId: post._id };
				const now = Date.now();
				const tag = { Id: newGuid(), TagType: ctx.params.TagType, Value: ctx.params.Value, CreatedTime: now, UpdatedTime: now };
				await this.stores.posts.updateById(post._id, { $push: { Tags: tag }, $addToSet: { TagNames: ctx.params.Value.toLowerCase() }, $set: { UpdatedTime: now } });
				await this.activity(post._id, `Tagged ${ctx.params.Value}`);
				return { ...tag, PostId: post._id };
			},

			async searchByTag(this: PostsThis, ctx: Context<{ TagNames?: string; AuthorType?: string; ContextId?: string } & Page>) {
				const names = (ctx.params.TagNames ?? "").split(",").map(t => t.trim().toLowerCase()).filter(Boolean);
				const query: Query = { ...unexpired(), ...visibleTo(await viewerOf(ctx)) };
				if (names.length) query.TagNames = { $in: names };
				if (ctx.params.ContextId) query.ContextId = ctx.params.ContextId;
				// Every post's author is a user today: another AuthorType matches nothing.
				if (ctx.params.AuthorType && ctx.params.AuthorType.toLowerCase() !== "user") return [];
				return this.postRecords(ctx, await pageOf(this.stores.posts, query, ctx.params, newestFirst));
			},

			async feed(this: PostsThis, ctx: Context<{ UserId: string } & Page>) {
				const me = ctx.params.UserId;
				const { people, networks } = await readCall<{ people: string[]; networks: string[] }, { userId: string }>(ctx, "graph.audienceOf", { userId: me });
				const query: Query = {
					...unexpired(),
					$or: [
						{ AuthorId: me },
						{ IsPrivate: false, AuthorId: { $in: people } },
						{ IsPrivate: false, ContextId: { $in: [...networks, ...people] } },
						{ Audience: { $in: [me, ...networks] } },
					],
				};
				return this.postRecords(ctx, await pageOf(this.stores.posts, query, ctx.params, newestFirst));
			},

			async comment(this: PostsThis, ctx: Context<{ PostId: string; AuthorId: string; Content: string; CreatedTime?: number }>) {
				const { post } = await this.visiblePost(ctx, ctx.params.PostId);
				const author = (await profilesOf(ctx, [ctx.params.AuthorId])).get(ctx.params.AuthorId);
				if (!author) throw failures.notFound(`User ${ctx.params.AuthorId}`);
				const now = Date.now();
				const doc: Doc = {
					_id: newGuid(),
					PostId: post._id,
					ContextId: post.ContextId,
					AuthorId: ctx.params.AuthorId,
					AuthorVenueId: author.DefaultVenueId,
					Content: ctx.params.Content,
					ContentCreatedTime: ctx.params.CreatedTime ?? now,
					CreatedTime: now,
					UpdatedTime: now,
				};
				await this.stores.comments.insert(doc);
				await this.activity(post._id, `${displayName(author) ?? "Someone"} commented`);
				const names = await Names.of(ctx, [ctx.params.AuthorId], []);
				return names.comment(doc);
			},

			async findComment(this: PostsThis, ctx: Context<{ Id: string }>) {
				const doc = await this.stores.comments.findById(ctx.params.Id);
				if (!doc) throw failures.notFound(`Comment ${ctx.params.Id}`);
				await this.visiblePost(ctx, String(doc.PostId)).catch(() => {
					throw failures.notFound(`Comment ${ctx.params.Id}`);
				});
				return (await Names.of(ctx, [String(doc.AuthorId)], [])).comment(doc);
			},

			/** Internal: 404 unless the caller may see the post (media attached to posts follow their posts). */
			checkVisible: {
				visibility: "public",
				async handler(this: PostsThis, ctx: Context<{ postId: string }>) {
					await this.visiblePost(ctx, ctx.params.postId);
					return true;
				},
			},

			/** Internal: 404 unless the caller may see the post, 403 unless they wrote it (or are an admin). */
			checkAuthor: {
				visibility: "public",
				async handler(this: PostsThis, ctx: Context<{ postId: string }>) {
					await this.authoredPost(ctx, ctx.params.postId);
					return true;
				},
			},

			/** Internal: which of these posts the caller may see. */
			visibleAmong: {
				visibility: "public",
				async handler(this: PostsThis, ctx: Context<{ postIds: string[] }>) {
					const viewer = await viewerOf(ctx);
					return (await this.stores.posts.findByIds(ctx.params.postIds)).filter(p => canSee(viewer, p)).map(p => p._id);
				},
			},

			async comments(this: PostsThis, ctx: Context<{ PostId: string } & Page>) {
				const { post } = await this.visiblePost(ctx, ctx.params.PostId);
				const docs = await pageOf(this.stores.comments, { PostId: post._id }, ctx.params, conversationOrder);
				const names = await Names.of(ctx, docs.map(d => String(d.AuthorId)), []);
				return docs.map(d => names.comment(d));
			},
		},

		methods: {
			/** The post, if the caller may see it; a private post the caller may not see does not exist (404). */
			async visiblePost(this: PostsThis, ctx: Context, id: string, known?: Viewer) {
				const post = await this.stores.posts.findById(id);
				if (!post) throw failures.notFound(`Post ${id}`);
				const viewer = known ?? (await viewerOf(ctx));
				if (!canSee(viewer, post)) throw failures.notFound(`Post ${id}`);
				return { post, viewer };
			},

			/** The post, if the caller is its author or an admin (403 for others who can see it). */
			async authoredPost(this: PostsThis, ctx: Context, id: string) {
				const { post, viewer } = await this.visiblePost(ctx, id);
				if (!viewer.admin && post.AuthorId !== viewer.userId) throw failures.forbidden("Only the post's author may do this");
				return post;
			},

			/** Post records for a page of posts: one query for their comments and one round of names. */
			async postRecords(this: PostsThis, ctx: Context, docs: Doc[]) {
				if (docs.length === 0) return [];
				const comments = await this.stores.comments.find({ query: { PostId: { $in: docs.map(d => d._id) } }, sort: conversationOrder });
				const byPost = new Map<string, Doc[]>();
				for (const c of comments) {
					const list = byPost.get(String(c.PostId)) ?? [];
					if (list.length < embeddedComments) list.push(c);
					byPost.set(String(c.PostId), list);
				}
				const names = await Names.forPosts(ctx, docs, comments);
				return docs.map(d => names.post(d, byPost.get(d._id) ?? []));
			},

			async addRecipient(this: PostsThis, ctx: Context, postId: string, type: string, id: string) {
				const post = await this.authoredPost(ctx, postId);
				const names = await Names.of(ctx, [id], [id]);
				const key = names.recipientKey(id);
				if (!key || parseRecipientKey(key).type !== type) throw failures.notFound(`${type} ${id}`);
				const recipient = names.recipient(key);
				// A recipient added twice stays one: $addToSet is idempotent, and the activity is written once.
				if (!((post.Audience as string[]) ?? []).includes(id)) {
					await this.stores.posts.updateById(post._id, { $addToSet: { Recipients: key, Audience: id }, $set: { UpdatedTime: Date.now() } });
					await this.activity(post._id, `${String(recipient.DisplayName ?? "A recipient")} was added`);
				}
				return recipient;
			},

			/** "User:<id>" or "Network:<id>" for each id, or a 400 naming RecipientIds when one is neither. */
			async recipientKeys(this: PostsThis, ctx: Context, ids: string[]) {
				if (ids.length === 0) return [];
				const names = await Names.of(ctx, ids, ids);
				return [...new Set(ids)].map(id => {
					const key = names.recipientKey(id);
					if (!key) throw failures.field("RecipientIds", "InvalidValue", `${id} is neither a user nor a network`);
					return key;
				});
			},

			async activity(this: PostsThis, postId: string, message: string) {
				const now = Date.now();
				await this.stores.posts.updateById(postId, { $push: { Activities: { Id: newGuid(), Message: message, CreatedTime: now } }, $set: { UpdatedTime: now } });
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
