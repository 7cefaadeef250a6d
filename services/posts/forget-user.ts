import { Context } from "moleculer";
import { changed } from "../../shared/changes/changes";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { fanOutOf } from "./fan-out";
import { listedBy } from "./post-edits";
import { commentDeleted, postDeleted } from "./posts.changes";
import { PostsRepository } from "./posts.repository";
import { postSources } from "./timeline-sources";

/** How many of a deleted account's posts or comments are taken at a time. */
const batch = 100;

/**
 * Everything the posts domain holds of a deleted account: its posts, each removed as DeletePost removes one (its
 * parts, its audience's timeline entries, its kept lists and streams told), its comments on others' posts, and its
 * own home timeline. Each step repeats harmlessly, so a deletion cut off is finished by running this again.
 */
export async function forgetAuthor(
	ctx: Context,
	repo: RepositoryContract<PostsRepository>,
	userId: string,
	pushLimit: number,
): Promise<number> {
	let removed = 0;
	for (let posts = await repo.postsBy(userId, batch); posts.length; posts = await repo.postsBy(userId, batch)) {
		for (const post of posts) {
			const { tags, recipients } = await listedBy(repo, post);
			const fanOut = await fanOutOf(ctx, postSources(post, recipients), pushLimit);
			await repo.deletePost(post, [...new Set(fanOut.entries.map(entry => entry.ownerId))]);
			await changed(ctx, postDeleted(post, tags, recipients));
			removed += 1;
		}
	}
	const page = { Offset: 0, Limit: batch };
	for (
		let comments = await repo.commentsBy(userId, page);
		comments.length;
		comments = await repo.commentsBy(userId, page)
	) {
		for (const comment of comments) {
			await repo.deleteComment(comment.Id);
			const post = await repo.visiblePost(comment.PostId, { admin: true, networks: [], hidden: [] });
			if (post) await changed(ctx, commentDeleted(post, comment));
			removed += 1;
		}
	}
	await repo.forgetTimeline(userId);
	await changed(ctx, { domain: "posts" });
	return removed;
}
