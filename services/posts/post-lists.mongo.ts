import { Collection, Document, Filter } from "mongodb";
import { failures } from "../../shared/errors";
import { Anchor, Page } from "../../shared/persistence/sql/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { Hit, LabelledHit, newestFirst, PostLists, unique, Window } from "./post-lists";
import { PostRow } from "./posts.rows";
import { Reader, reachOf } from "./posts.sql";
import { Selector } from "./timeline-sources";
import { PostCollections, PostCopy, PostDocument, toPost } from "./post-documents.mongo";
import { visiblePosts } from "./post-visibility.mongo";

/**
 * A post a part's index range found: its id and time, and its privacy and expiry (every list index holds them, so
 * reading them costs no fetch).
 */
export interface Row extends Hit {
	isPrivate: boolean;
	expiresAt: number;
}

/** A post a labelled selector found (what a timeline's backfill copies into entries). */
export interface LabelledRow extends Row, LabelledHit {}

/**
 * Which of these posts a part keeps: what its index range cannot decide (a tag, the reader's right to see, the post
 * being there).
 */
type Keep = (rows: Row[]) => Promise<Set<string>>;

/**
 * One part of a list of posts (as in posts.feed.ts), read newest first: an index range of posts or of the copies that
 * carry their post's time, privacy and expiry (tags, recipients, timeline entries). `filter`: equalities on the leading
 * fields, a `$in` of at most `valuesPerPart` values among them (ranges MongoDB merges in order up to the limit, a
 * SORT_MERGE), then conditions on fields the index holds past the time (privacy, a timeline's source).
 */
interface Part {
	source: "posts" | "tags" | "recipients" | "entries";
	filter: Document;
	keep?: Keep;
}

/** The fields each source holds the post's id, time and expiry in. */
const copyFields = { id: "post_id", time: "post_created_time", expiresAt: "post_expires_at" } as const;
const fieldsOf = {
	posts: { id: "_id", time: "created_time", expiresAt: "expires_at" },
	tags: copyFields,
	recipients: copyFields,
	entries: copyFields,
} as const;

/**
 * MongoDB merges at most 200 ranges in order (internalQueryMaxScansToExplode); a part's `$in` values times its
 * privacies stay within.
 */
const valuesPerPart = 100;

/**
 * How many index entries a part reads at most at once when its `keep` turns many down (it starts with a page's worth).
 */
const maxBatch = 1000;

/**
 * "Older than the anchor" in the order (time, id) newest first: a bound on the time the index seeks to, and the
 * anchor's own time past its id.
 */
function olderThan(time: string, id: string, anchor: Anchor): Document {
	return { [time]: { $lte: anchor.time }, $nor: [{ [time]: anchor.time, [id]: { $gte: anchor.id } }] };
}

/**
 * The part without its posts older than `floor` (in an `$and`, which the cursor's bound on the time, spread over the
 * filter, leaves in place).
 */
function noOlderThan(part: Part, floor: number | undefined): Part {
	if (floor === undefined) return part;
	return { ...part, filter: { ...part.filter, $and: [{ [fieldsOf[part.source].time]: { $gte: floor } }] } };
}

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
	return async rows => {
		let kept = rows;
		for (const keep of given) {
			if (kept.length === 0) break;
			const ids = await keep(kept);
			kept = kept.filter(row => ids.has(row.id));
		}
		return new Set(kept.map(row => row.id));
	};
}

/** Keeps the public posts, and the private ones `keep` keeps: a range of mostly public posts asks about few. */
function privateOnesBy(keep: Keep | undefined): Keep | undefined {
	if (!keep) return undefined;
	return async rows => {
		const asked = rows.filter(row => row.isPrivate);
		const kept = asked.length ? await keep(asked) : new Set<string>();
		return new Set(rows.filter(row => !row.isPrivate || kept.has(row.id)).map(row => row.id));
	};
}

/**
 * Timelines, walls and searches on MongoDB, from the same indexes as `PostLists` on SQL: each part yields its first
 * (Offset + Limit) posts from the cursor on, and the page is cut from their union, newest first. A part whose index
 * cannot decide everything (a wall's private posts, a tag copy whose post is not written yet) reads on in growing
 * batches, as SQL's residual conditions do.
 */
export class MongoPostLists implements RepositoryContract<PostLists> {
	constructor(private readonly c: PostCollections) {}

	/** SearchPostsByTag, part for part as `PostLists.searchByTag`. */
	async searchByTag(reader: Reader, tags: string[], contextId: string | undefined, page: Page): Promise<PostRow[]> {
		const names = unique(tags);
		const tagged = names.length ? this.taggedWith(names) : undefined;
		let parts: Part[];
		if (contextId) {
			parts = [this.ofPosts({ context_id: contextId }, allOf(privateOnesBy(this.visibleTo(reader)), tagged))];
		} else if (reader.admin) {
			parts = names.length
				? inChunks(names, chunk => this.ofTags({ name: { $in: chunk }, post_is_private: { $in: [false, true] } }))
				: [this.ofPosts({ is_private: { $in: [false, true] } })];
		} else {
			parts = names.length
				? inChunks(names, chunk => this.ofTags({ name: { $in: chunk }, post_is_private: false }))
				: [this.ofPosts({ is_private: false })];
			if (reader.userId) parts.push(this.ofPosts({ author_id: reader.userId, is_private: true }, tagged));
			parts.push(
				...inChunks(unique(reachOf(reader)), chunk =>
					this.ofRecipients({ recipient_id: { $in: chunk }, post_is_private: true }, tagged),
				),
			);
		}
		return this.page(parts, reader, page);
	}

	/**
	 * UserPosts, as `PostLists.userPosts`: the author index's public and private ranges merged in one
	 * part (one query a page), the private posts kept for the reader as SQL's second part keeps them.
	 */
	async userPosts(reader: Reader, authorId: string, page: Page): Promise<PostRow[]> {
		const keep = reader.userId === authorId ? undefined : privateOnesBy(this.visibleTo(reader));
		return this.page([this.ofPosts({ author_id: authorId, is_private: { $in: [false, true] } }, keep)], reader, page);
	}

	/**
	 * A page of a reader's home timeline as pushed, with the sources it pulls (`pulled`) read from their own indexes, as
	 * `PostLists.timeline`.
	 */
	async timeline(
		reader: Reader & { userId: string },
		sourceKeys: string[],
		pulled: Selector[],
		page: Page,
		excluded: readonly string[],
	): Promise<PostRow[]> {
		return this.page([this.ofTimeline(reader.userId, sourceKeys), ...this.partsOf(pulled)], reader, page, excluded);
	}

	/** The same page assembled from every source's own index: what a timeline's reader gets past its end. */
	async assembled(reader: Reader, selectors: Selector[], page: Page, excluded: readonly string[]): Promise<PostRow[]> {
		return this.page(this.partsOf(selectors), reader, page, excluded);
	}

	/**
	 * The newest `take` unexpired (post, label) pairs of labelled selectors, with what an entry copies of its post, for
	 * a timeline's backfill. A part per selector, as each post needs the label of every selector that found it, read
	 * `valuesPerPart` at a time, each group no older than what earlier ones kept: so that many sources cost neither
	 * thousands of queries at once nor `take` rows each.
	 */
	async latest(selectors: Array<{ selector: Selector; label: string }>, take: number): Promise<LabelledRow[]> {
		if (take === 0) return [];
		const window: Window = { now: Date.now(), take, excluded: [] };
		let top: LabelledRow[] = [];
		for (let i = 0; i < selectors.length; i += valuesPerPart) {
			const floor = top.length === take ? top[take - 1].ts : undefined;
			const found = await Promise.all(
				selectors.slice(i, i + valuesPerPart).map(async ({ selector, label }) =>
					(await this.topOf(noOlderThan(this.selected(selector, selector.id), floor), window)).map(row => ({
						...row,
						label,
					})),
				),
			);
			// A post two selectors of one source find (a network's post addressed to it) is one pair, as SQL's UNION makes
			// it.
			const pairs = new Map([...top, ...found.flat()].map(row => [`${row.label}\n${row.id}`, row]));
			top = [...pairs.values()].sort(newestFirst).slice(0, take);
		}
		return top;
	}

	private ofPosts(filter: Document, keep?: Keep): Part {
		return { source: "posts", filter, keep };
	}

	/**
	 * A reader's timeline entries, a private one only while it comes from one of the reader's sources.
	 * Entries are written before their post (see MongoPostsRepository.createPost): only posts that are there.
	 */
	private ofTimeline(ownerId: string, sourceKeys: string[]): Part {
		return {
			source: "entries",
			filter: { owner_id: ownerId, $or: [{ post_is_private: false }, { source: { $in: sourceKeys } }] },
			keep: this.written,
		};
	}

	/**
	 * The parts selectors read: those of one kind together, a part per `valuesPerPart` of their ids, so that a reader of
	 * many sources costs a few queries a page.
	 */
	private partsOf(selectors: Selector[]): Part[] {
		const byKind = new Map<string, { kind: Selector; ids: string[] }>();
		for (const selector of selectors) {
			const key = `${selector.by}:${selector.publicOnly}`;
			const group = byKind.get(key) ?? { kind: selector, ids: [] };
			group.ids.push(selector.id);
			byKind.set(key, group);
		}
		return [...byKind.values()].flatMap(({ kind, ids }) =>
			inChunks(unique(ids), chunk => this.selected(kind, { $in: chunk })),
		);
	}

	/**
	 * The part of selectors like `kind` (timeline-sources.ts) for `id` (one, or a `$in`), as SQL's
	 * `partOf`. An author's posts of both privacies name both, so that the index reads them as ranges
	 * merged in order.
	 */
	private selected({ by, publicOnly }: Selector, id: string | Document): Part {
		if (by === "recipient")
			return this.ofRecipients({ recipient_id: id, ...(publicOnly ? { post_is_private: false } : {}) });
		if (by === "author")
			return this.ofPosts({ author_id: id, is_private: publicOnly ? false : { $in: [false, true] } });
		return this.ofPosts({ context_id: id, ...(publicOnly ? { is_private: false } : {}) });
	}

	/**
	 * Tags and recipients are written before their post (see MongoPostsRepository.createPost): a part of them keeps only
	 * posts that are there.
	 */
	private ofTags(filter: Document, keep?: Keep): Part {
		return { source: "tags", filter, keep: allOf(keep, this.written) };
	}

	private ofRecipients(filter: Document, keep?: Keep): Part {
		return { source: "recipients", filter, keep: allOf(keep, this.written) };
	}

	private readonly written: Keep = async rows =>
		new Set(
			(await this.c.posts.find({ _id: { $in: idsOf(rows) } }, { projection: { _id: 1 } }).toArray()).map(
				doc => doc._id,
			),
		);

	private taggedWith(names: string[]): Keep {
		return async rows =>
			new Set(
				(
					await this.c.tags
						.find({ post_id: { $in: idsOf(rows) }, name: { $in: names } }, { projection: { _id: 0, post_id: 1 } })
						.toArray()
				).map(doc => doc.post_id),
			);
	}

	/** The posts by none of `authors` (whom a reader hides or mutes), asked of the posts by id. */
	private notBy(authors: readonly string[]): Keep {
		return async rows =>
			new Set(
				(
					await this.c.posts
						.find({ _id: { $in: idsOf(rows) }, author_id: { $nin: [...authors] } }, { projection: { _id: 1 } })
						.toArray()
				).map(doc => doc._id),
			);
	}

	/** The posts the reader may see; nothing to ask for an admin, who sees all. */
	private visibleTo(reader: Reader): Keep | undefined {
		if (reader.admin) return undefined;
		return async rows => new Set((await visiblePosts(this.c, idsOf(rows), reader, { _id: 1 })).map(doc => doc._id));
	}

	/**
	 * The page of the union of `parts`, newest first, without the posts of `excluded` (by default whom the reader hides):
	 * each part keeps them out itself, so that its top has no holes.
	 */
	private async page(
		parts: Part[],
		reader: Reader,
		page: Page,
		excluded: readonly string[] = reader.hidden,
	): Promise<PostRow[]> {
		if (page.Limit === 0 || parts.length === 0) return [];
		const window: Window = {
			now: Date.now(),
			anchor: await this.anchor(reader, page),
			take: page.Offset + page.Limit,
			excluded,
		};
		const notExcluded = excluded.length ? this.notBy(excluded) : undefined;
		const kept = notExcluded ? parts.map(part => ({ ...part, keep: allOf(part.keep, notExcluded) })) : parts;
		// A post in several parts (two of its tags, public and addressed to me) is listed once.
		const hits = new Map<string, Hit>();
		for (const partHits of await Promise.all(kept.map(part => this.topOf(part, window))))
			for (const hit of partHits) hits.set(hit.id, hit);
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
	private async topOf(part: Part, window: Window): Promise<Row[]> {
		const { id, time, expiresAt } = fieldsOf[part.source];
		const kept: Row[] = [];
		let from = window.anchor;
		let batch = window.take;
		for (;;) {
			const filter = { ...part.filter, [expiresAt]: { $gt: window.now }, ...(from ? olderThan(time, id, from) : {}) };
			const rows = await this.rowsOf(part.source, filter, batch);
			// A post's entries (one per name searched, one per source in a timeline) are side by side: same time, same id.
			const posts = rows.filter((row, i) => i === 0 || row.id !== rows[i - 1].id);
			const keep = part.keep && posts.length ? await part.keep(posts) : undefined;
			kept.push(...(keep ? posts.filter(hit => keep.has(hit.id)) : posts));
			if (kept.length >= window.take || rows.length < batch) return kept.slice(0, window.take);
			from = { time: rows[rows.length - 1].ts, id: rows[rows.length - 1].id };
			batch = Math.max(Math.min(batch * 2, maxBatch), window.take);
		}
	}

	/** The first `limit` entries of a part's index range, newest first: only fields of the index are read. */
	private async rowsOf(source: Part["source"], filter: Document, limit: number): Promise<Row[]> {
		if (source === "posts") {
			const docs = await this.c.posts
				.find(filter as Filter<PostDocument>, { projection: { created_time: 1, is_private: 1, expires_at: 1 } })
				.sort({ created_time: -1, _id: -1 })
				.limit(limit)
				.toArray();
			return docs.map(doc => ({
				id: doc._id,
				ts: doc.created_time,
				isPrivate: doc.is_private,
				expiresAt: doc.expires_at,
			}));
		}
		if (source === "entries") return copiesOf(this.c.timelineEntries, filter, limit);
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

const idsOf = (rows: Row[]) => rows.map(row => row.id);

/** A tag's, recipient's or timeline entry's index range, newest post first. */
async function copiesOf<T extends PostCopy>(
	collection: Collection<T>,
	filter: Document,
	limit: number,
): Promise<Row[]> {
	const docs = await collection
		.find(filter as Filter<T>, {
			projection: { _id: 0, post_id: 1, post_created_time: 1, post_is_private: 1, post_expires_at: 1 },
		})
		.sort({ post_created_time: -1, post_id: -1 })
		.limit(limit)
		.toArray();
	return docs.map(doc => ({
		id: doc.post_id,
		ts: doc.post_created_time,
		isPrivate: doc.post_is_private,
		expiresAt: doc.post_expires_at,
	}));
}
