import { Filter } from "mongodb";
import { Reader, reachOf } from "./posts.sql";
import { PostCollections, PostDocument } from "./post-documents.mongo";

/**
 * Of these posts, those addressed to the reader or one of their networks, asked of these posts' recipient records
 * (keyed by (post_id, recipient_id)). Always from the posts to their recipients: neither side is bounded (a post gains
 * recipients one at a time without limit, and a reader may be addressed by any number of posts).
 */
export async function addressedAmong(
	{ recipients }: PostCollections,
	postIds: readonly string[],
	reader: Reader,
): Promise<string[]> {
	const reach = [...new Set(reachOf(reader))];
	if (reader.admin || postIds.length === 0 || reach.length === 0) return [];
	const rows = await recipients
		.find({ post_id: { $in: [...postIds] }, recipient_id: { $in: reach } }, { projection: { _id: 0, post_id: 1 } })
		.toArray();
	return [...new Set(rows.map(row => row.post_id))];
}

/**
 * "The post is visible to the reader" (PRODUCT.md §3), as visibleSql says it: public, or written by
 * the reader, or addressed to them or to one of their networks (`addressed`, from addressedAmong),
 * and not by a user blocked either way; everything for admins.
 */
export function visibleFilter(reader: Reader, addressed: readonly string[]): Filter<PostDocument> {
	if (reader.admin) return {};
	return {
		$or: [
			{ is_private: false },
			...(reader.userId ? [{ author_id: reader.userId }] : []),
			{ _id: { $in: [...addressed] } },
		],
		...(reader.hidden.length ? { author_id: { $nin: [...reader.hidden] } } : {}),
	};
}

/** Those of these posts the reader may see, with the fields of `projection` (all without one). */
export async function visiblePosts(
	collections: PostCollections,
	postIds: readonly string[],
	reader: Reader,
	projection?: Partial<Record<keyof PostDocument, 1>>,
): Promise<PostDocument[]> {
	if (postIds.length === 0) return [];
	const addressed = await addressedAmong(collections, postIds, reader);
	return collections.posts
		.find({ _id: { $in: [...postIds] }, ...visibleFilter(reader, addressed) }, { projection })
		.toArray();
}
