import { Context } from "moleculer";
import { cacheOf, defineCache } from "../../shared/cache/node-caches";
import { PostsRepository } from "./posts.repository";
import { embedsByPost, PostEmbeds } from "./posts.rows";

/**
 * What post records embed (tags, recipients, latest activities, first comments), by post id, on
 * each posts node; every write to a post invalidates its entry on all of them. It decides nothing
 * about who may see a post: the post itself and its visibility to the viewer are read on every
 * request, and names are added at read time (they have a cache of their own).
 */
export const postCache = defineCache<PostEmbeds>("posts", { max: 5_000, ttlMs: 5 * 60_000 });

/** The embeds of these posts: the cached ones, and the others in one query per embedded kind. */
export function embedsOf(ctx: Context, repo: PostsRepository, postIds: string[]): Promise<Map<string, PostEmbeds>> {
	return cacheOf(ctx.broker, postCache).throughMany(postIds, async missing => embedsByPost(await repo.parts(missing), missing));
}
