import { Collection, Document, Filter } from "mongodb";
import { failures } from "../../shared/errors";
import { Anchor, Page } from "../../shared/persistence/sql/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { Hit, PostLists, unique, Window } from "./posts.feed";
import { PostRow } from "./posts.rows";
import { Reader, reachOf } from "./posts.sql";
import { OfPost, PostCollections, PostDocument, toPost } from "./posts-documents.mongo";
import { visiblePosts } from "./posts-visibility.mongo";

/** Which of these post ids a part keeps: what its index range cannot decide (a tag, the reader's right to see, the post being there). */
type Keep = (ids: string[]) => Promise<Set<string>>;

/**
 * One part of a list of posts (as in posts.feed.ts): an index range of posts, or of the tags or
 * recipients that copy their post's time, privacy and expiry, read newest first. `filter` is the
 * equalities on the index's leading fields, a `$in` of at most `valuesPerPart` values among them,
 * which MongoDB reads as that many ranges merged in order (a SORT_MERGE) and stops after the limit.
 */
interface Part {
	source: "posts" | "tags" | "recipients";
	filter: Document;
	keep?: Keep;
}

/** The fields each source holds the post's id, time and expiry in. */
const fieldsOf = {
	posts: { id: "_id", time: "created_time", expiresAt: "expires_at" },
	tags: { id: "post_id", time: "post_created_time", expiresAt: "post_expires_at" },
	recipients: { id: "post_id", time: "post_created_time", expiresAt: "post_expires_at" },
} as const;

/** MongoDB merges at most 200 ranges in order (internalQueryMaxScansToExplode); a part's `$in` values times its privacies stay within. */
const valuesPerPart = 100;

/** How many index entries a part reads at most at once when its `keep` turns many down (it starts with a page's worth). */
const maxBatch = 1000;

/** "Older than the anchor" in the order (time, id) newest first: a bound on the time the index seeks to, and the anchor's own time past its id. */
function olderThan(time: string, id: string, anchor: Anchor): Document {
	return { [time]: { $lte: anchor.time }, $nor: [{ [time]: anchor.time, [id]: { $gte: anchor.id } }] };
}

const newestFirst = (a: Hit, b: Hit) => b.ts - a.ts || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** One part for each `valuesPerPart` of `values`. */
function inChunks(values: string[], part: (chunk: string[]) => Part): Part[] {
	const parts: Part[] = [];
	for (let i = 0; i < values.length; i += valuesPerPart) parts.push(part(values.slice(i, i + valuesPerPart)));
	return parts;
}

/** Keeps what every one of `keeps` keeps, asking each about what the ones before kept. */
function allOf(...keeps: Array<Keep | undefined>): Keep | undefined {
	const given = keeps.filter((keep): keep is Keep => keep !== undefined);
	if (given.length === 0) return undefined;
	return async ids => {
		let kept = new Set(ids);
		for (const keep of given) kept = kept.size ? await keep([...kept]) : kept;
		return kept;
	};
}

/**
 * Feeds and searches on MongoDB: what `PostLists` does on SQL, from the same indexes. Each part
 * yields its first (Offset + Limit) posts from the cursor on, read from its index range and cut
 * there; the list is their union, newest first, cut to the page. A part whose index cannot decide
 * everything (a context's posts having a tag, a tag's copy whose post is not written yet) reads on in
 * growing batches until it has them or its range ends, as SQL's residual conditions do.
 */
export class MongoPostLists implements RepositoryContract<PostLists> {
	constructor(private readonly c: PostCollections) {}

	/** SearchPostsByTag, part for part as `PostLists.searchByTag`. */
	async searchByTag(reader: Reader, tags: string[], contextId: string | undefined, page: Page): Promise<PostRow[]> {
		const names = unique(tags);
		const tagged = names.length ? this.taggedWith(names) : undefined;
		let parts: Part[];
		if (contextId) {
			parts = [this.ofPosts({ context_id: contextId, is_private: false }, tagged), this.ofPosts({ context_id: contextId, is_private: true }, allOf(tagged, this.visibleTo(reader)))];
		} else if (reader.admin) {
			parts = names.length ? inChunks(names, chunk => this.ofTags({ name: { $in: chunk }, post_is_private: { $in: [false, true] } })) : [this.ofPosts({ is_private: { $in: [false, true] } })];
		} else {
			parts = names.length ? inChunks(names, chunk => this.ofTags({ name: { $in: chunk }, post_is_private: false })) : [this.ofPosts({ is_private: false })];
			if (reader.userId) parts.push(this.ofPosts({ author_id: reader.userId, is_private: true }, tagged));
			parts.push(...inChunks(unique(reachOf(reader)), chunk => this.ofRecipients({ recipient_id: { $in: chunk }, post_is_private: true }, tagged)));
		}
		return this.page(parts, reader, page);
	}

	/** UserFeed, part for part as `PostLists.feed`. */
	async feed(userId: string, people: string[], networks: string[], page: Page): Promise<PostRow[]> {
		const parts = [this.ofPosts({ author_id: userId, is_private: { $in: [false, true] } })];
		parts.push(
			...inChunks(
				unique(people).filter(id => id !== userId),
				chunk => this.ofPosts({ author_id: { $in: chunk }, is_private: false }),
			),
		);
		parts.push(...inChunks(unique([...networks, ...people]), chunk => this.ofPosts({ context_id: { $in: chunk }, is_private: false })));
		parts.push(...inChunks(unique([userId, ...networks]), chunk => this.ofRecipients({ recipient_id: { $in: chunk } })));
		// Everything a feed lists is visible to its owner: the cursor must be a post they can see.
		return this.page(parts, { userId, admin: false, networks }, page);
	}

	private ofPosts(filter: Document, keep?: Keep): Part {
		return { source: "posts", filter, keep };
	}

	/** Tags and recipients are written before their post (see MongoPostsRepository.createPost): a part of them keeps only posts that are there. */
	private ofTags(filter: Document, keep?: Keep): Part {
		return { source: "tags", filter, keep: allOf(keep, this.written) };
	}

	private ofRecipients(filter: Document, keep?: Keep): Part {
		return { source: "recipients", filter, keep: allOf(keep, this.written) };
	}

	private readonly written: Keep = async ids => new Set((await this.c.posts.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map(doc => doc._id));

	private taggedWith(names: string[]): Keep {
		return async ids => new Set((await this.c.tags.find({ post_id: { $in: ids }, name: { $in: names } }, { projection: { _id: 0, post_id: 1 } }).toArray()).map(doc => doc.post_id));
	}

	private visibleTo(reader: Reader): Keep {
		return async ids => new Set((await visiblePosts(this.c, ids, reader, { _id: 1 })).map(doc => doc._id));
	}

	/** The page of the union of `parts`, newest first. */
	private async page(parts: Part[], reader: Reader, page: Page): Promise<PostRow[]> {
		if (page.Limit === 0 || parts.length === 0) return [];
		const window: Window = { now: Date.now(), anchor: await this.anchor(reader, page), take: page.Offset + page.Limit };
		// A post in several parts (two of its tags, public and addressed to me) is listed once.
		const hits = new Map<string, Hit>();
		for (const partHits of await Promise.all(parts.map(part => this.topOf(part, window)))) for (const hit of partHits) hits.set(hit.id, hit);
		const ids = [...hits.values()]
			.sort(newestFirst)
			.slice(page.Offset, window.take)
			.map(hit => hit.id);
		if (ids.length === 0) return [];
		const byId = new Map((await this.c.posts.find({ _id: { $in: ids } }).toArray()).map(doc => [doc._id, doc]));
		return ids.flatMap(id => {
			const doc = byId.get(id);
			return doc ? [toPost(doc)] : [];
		});
	}

	/**
	 * A part's first `take` posts after the cursor, newest first, each once. Without `keep` one query
	 * cut at `take` (a post is once in a range, but for a tag search's several names); with one, batches
	 * from where the last ended, each twice the one before (up to maxBatch), until `take` are kept.
	 */
	private async topOf(part: Part, window: Window): Promise<Hit[]> {
		const { id, time, expiresAt } = fieldsOf[part.source];
		const kept: Hit[] = [];
		let from = window.anchor;
		let batch = window.take;
		for (;;) {
			const filter = { ...part.filter, [expiresAt]: { $gt: window.now }, ...(from ? olderThan(time, id, from) : {}) };
			const rows = await this.rowsOf(part.source, filter, batch);
			// A post's entries (one per name searched) are side by side: same time, same id.
			const posts = rows.filter((row, i) => i === 0 || row.id !== rows[i - 1].id);
			const keep = part.keep && posts.length ? await part.keep(posts.map(hit => hit.id)) : undefined;
			kept.push(...(keep ? posts.filter(hit => keep.has(hit.id)) : posts));
			if (kept.length >= window.take || rows.length < batch) return kept.slice(0, window.take);
			from = { time: rows[rows.length - 1].ts, id: rows[rows.length - 1].id };
			batch = Math.max(Math.min(batch * 2, maxBatch), window.take);
		}
	}

	/** The first `limit` entries of a part's index range, newest first, as (post id, post time): only fields of the index are read. */
	private async rowsOf(source: Part["source"], filter: Document, limit: number): Promise<Hit[]> {
		if (source === "posts") {
			const docs = await this.c.posts
				.find(filter as Filter<PostDocument>, { projection: { created_time: 1 } })
				.sort({ created_time: -1, _id: -1 })
				.limit(limit)
				.toArray();
			return docs.map(doc => ({ id: doc._id, ts: doc.created_time }));
		}
		return source === "tags" ? copiesOf(this.c.tags, filter, limit) : copiesOf(this.c.recipients, filter, limit);
	}

	/** Where a cursor resumes: a post the reader may see (else a 400 on AfterId, as for a post that does not exist). */
	private async anchor(reader: Reader, page: Page): Promise<Anchor | undefined> {
		if (!page.AfterId) return undefined;
		const [post] = await visiblePosts(this.c, [page.AfterId], reader, { created_time: 1 });
		if (!post) throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
		return { time: post.created_time, id: post._id };
	}
}

/** A tag's or recipient's index range, newest post first. */
async function copiesOf<T extends OfPost>(collection: Collection<T>, filter: Document, limit: number): Promise<Hit[]> {
	const docs = await collection
		.find(filter as Filter<T>, { projection: { _id: 0, post_id: 1, post_created_time: 1 } })
		.sort({ post_created_time: -1, post_id: -1 })
		.limit(limit)
		.toArray();
	return docs.map(doc => ({ id: doc.post_id, ts: doc.post_created_time }));
}
