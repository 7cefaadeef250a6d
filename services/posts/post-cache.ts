import { Context } from "moleculer";
import { audienceCache } from "../../shared/audience";
import { CALLER_SCOPE, ResponseScopeMeta } from "../../shared/caller";
import { cacheOf, defineCache } from "../../shared/cache/node-caches";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { PostsRepository } from "./posts.repository";
import { embedsByPost, PostEmbeds, PostRow } from "./posts.rows";
import { Reader } from "./posts.sql";

/**
 * What post records embed (tags, recipients, latest activities, first comments), by post id, on
 * each posts node; every write to a post invalidates its entry on all of them. It decides nothing
 * about who may see a post: the post itself and its visibility to the viewer are read on every
 * request, and names are added at read time (they have a cache of their own).
 */
export const postCache = defineCache<PostEmbeds>("posts", { max: 5_000, ttlMs: 5 * 60_000 });

/** The embeds of these posts: the cached ones, and the others in one query per embedded kind. */
export function embedsOf(
	ctx: Context,
	repo: RepositoryContract<PostsRepository>,
	postIds: string[],
): Promise<Map<string, PostEmbeds>> {
	return cacheOf(ctx.broker, postCache).throughMany(postIds, async missing =>
		embedsByPost(await repo.parts(missing), missing),
	);
}

/**
 * Public posts' rows, by id, on each posts node: a public post is visible to every caller who may
 * ask, so a kept row answers anyone. A private post is never kept: whether its reader may see it is
 * asked of the store every time. Invalidated with the embeds, by every write to the post.
 */
export const publicPostCache = defineCache<PostRow>("publicPosts", { max: 20_000, ttlMs: 5 * 60_000 });

/**
 * The post if the viewer may see it: a public one through the cache, a private one from the store; neither when its
 * author is one the viewer hides (as the store's query decides, so for a kept row too).
 */
export async function visiblePostOf(
	ctx: Context,
	repo: RepositoryContract<PostsRepository>,
	id: string,
	viewer: Reader,
): Promise<PostRow | undefined> {
	const post = await cacheOf(ctx.broker, publicPostCache).through(
		id,
		() => repo.visiblePost(id, viewer),
		found => (found.IsPrivate ? 0 : publicPostCache.ttlMs),
	);
	return post && !viewer.hidden.includes(post.AuthorId) ? post : undefined;
}

/**
 * Lets the gateway keep a FindPost answer: a public post's record is the same for every caller who hides nobody (names
 * change with users, the rest with the post); for one who hides someone it is theirs alone, until their audience
 * changes. A private one is not kept.
 */
export function keepPost(ctx: Context, post: PostRow, viewer: Reader): void {
	if (post.IsPrivate) return;
	const meta: ResponseScopeMeta =
		viewer.hidden.length && viewer.userId
			? {
					responseScope: CALLER_SCOPE,
					responseRecords: { [postCache.name]: [post.Id], [audienceCache.name]: [viewer.userId] },
				}
			: { responseScope: "everyone", responseRecords: { [postCache.name]: [post.Id] } };
	Object.assign(ctx.meta, meta);
}
