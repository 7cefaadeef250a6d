import { Page } from "../../shared/persistence/sql/paging";
import { upsertOnce } from "../../shared/persistence/mongo/errors";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { PostRow } from "./posts.rows";
import { Reader } from "./posts.sql";
import { selectorsOf, Source, sourceKey, sourceOfKey, sourcesDigest } from "./timeline-sources";
import { FanOut, servedFromTimeline, timelineBound, Timelines, trimChance } from "./timelines.repository";
import { insertUnlessThere, PostCollections, PostDocument, TimelineEntryDocument } from "./post-documents.mongo";
import { MongoPostLists, Row } from "./post-lists.mongo";

/**
 * A reader's timeline as `Timelines.reconcile` answers it: the horizon, and the digest of the sources it was built for.
 */
type TimelineState = Awaited<ReturnType<Timelines["reconcile"]>>;

/** What an entry copies of its post. */
type Pushed = Pick<PostDocument, "_id" | "created_time" | "is_private" | "expires_at">;

/**
 * Home timelines on MongoDB: what `Timelines` does on SQL, without transactions. Each write is
 * ordered so that what a crash leaves is invisible or completed by the call again: a post's entries
 * before the post (see MongoPostsRepository.createPost), a timeline's state after the entries it
 * describes, a trim's horizon before the entries it drops.
 */
export class MongoTimelines implements RepositoryContract<Timelines> {
	constructor(
		private readonly c: PostCollections,
		private readonly lists: MongoPostLists,
	) {}

	/**
	 * A page of a reader's home timeline: from their entries while the page lies above the horizon, else assembled from
	 * the sources, without whom the reader hides or mutes (as `Timelines.page`).
	 */
	async page(
		reader: Reader & { userId: string },
		sources: Source[],
		page: Page,
		muted: readonly string[] = [],
	): Promise<PostRow[]> {
		const excluded = [...new Set([...reader.hidden, ...muted])];
		const keys = sources.map(sourceKey);
		const digest = sourcesDigest(sources);
		const [stored, pulled] = await Promise.all([
			this.c.timelines.findOne({ _id: reader.userId }, { projection: { horizon: 1, sources_digest: 1 } }),
			this.pulledAmong(keys),
		]);
		const state =
			stored?.sources_digest === digest
				? { horizon: stored.horizon, digest }
				: await this.reconcile(reader.userId, sources, digest);
		const pulledSelectors = sources.filter(s => pulled.has(sourceKey(s))).flatMap(selectorsOf);
		const rows = await this.lists.timeline(reader, keys, pulledSelectors, page, excluded);
		if (servedFromTimeline(state.horizon, rows, page)) return rows;
		return this.lists.assembled(reader, sources.flatMap(selectorsOf), page, excluded);
	}

	/**
	 * Brings a reader's timeline to their sources now, as `Timelines.reconcile`: the entries of sources
	 * they left go, the newest `timelineBound` posts of sources they joined come in, the horizon rises
	 * to where that backfill stopped. The state goes last: until it is written the digest is the old
	 * one, so a call cut off is done again, whole, by the next read. Concurrent reads may both run it.
	 */
	async reconcile(ownerId: string, sources: Source[], digest = sourcesDigest(sources)): Promise<TimelineState> {
		const now = sources.map(sourceKey);
		const [pulled, stored] = await Promise.all([
			this.pulledAmong(now),
			this.c.timelines.findOne({ _id: ownerId }, { projection: { horizon: 1, sources: 1 } }),
		]);
		const before = new Set(stored?.sources ?? []);
		const current = new Set(now);
		const left = [...before].filter(key => !current.has(key));
		const joined = now.filter(key => !before.has(key) && !pulled.has(key));
		if (left.length) await this.c.timelineEntries.deleteMany({ owner_id: ownerId, source: { $in: left } });
		let horizon = stored?.horizon ?? 0;
		if (joined.length) {
			const hits = await this.lists.latest(
				joined.flatMap(key => selectorsOf(sourceOfKey(key)).map(selector => ({ selector, label: key }))),
				timelineBound,
			);
			await insertUnlessThere(
				this.c.timelineEntries,
				hits.map(hit => entryOf(ownerId, hit.label, hit)),
			);
			// The backfill stopped at its bound: older posts of those sources are not here, down to the last one's time.
			if (hits.length === timelineBound) horizon = Math.max(horizon, hits[hits.length - 1].ts + 1);
		}
		// $max: a trim may have raised the horizon meanwhile, and a horizon never goes down.
		const written = await upsertOnce(() =>
			this.c.timelines.findOneAndUpdate(
				{ _id: ownerId },
				{ $set: { sources_digest: digest, sources: now }, $max: { horizon } },
				{ upsert: true, returnDocument: "after", projection: { horizon: 1 } },
			),
		);
		return { horizon: written?.horizon ?? horizon, digest };
	}

	/** Which of these sources are pulled. */
	private async pulledAmong(keys: string[]): Promise<Set<string>> {
		if (keys.length === 0) return new Set();
		return new Set(
			(await this.c.pulledSources.find({ _id: { $in: keys } }, { projection: { _id: 1 } }).toArray()).map(
				doc => doc._id,
			),
		);
	}
}

/**
 * A post's entries in its audience's timelines (`pushEntries` on SQL), written before what makes them
 * visible (the post, or a recipient's activity). The sources found too large to push are marked first:
 * once the post can be seen, each of its sources is either pushed or pulled, whatever point a crash
 * stopped at. Every write keeps what is there, so the same call again completes it.
 */
export async function pushEntries(c: PostCollections, post: Pushed, { entries, oversized }: FanOut): Promise<void> {
	const now = Date.now();
	await insertUnlessThere(
		c.pulledSources,
		oversized.map(source => ({ _id: source, marked_time: now })),
	);
	const copied: Row = { id: post._id, ts: post.created_time, isPrivate: post.is_private, expiresAt: post.expires_at };
	await insertUnlessThere(
		c.timelineEntries,
		entries.map(e => entryOf(e.ownerId, e.source, copied)),
	);
	const trimmed = [...new Set(entries.map(e => e.ownerId))].filter(() => Math.random() < trimChance);
	await Promise.all(trimmed.map(ownerId => trim(c, ownerId)));
}

const entryOf = (ownerId: string, source: string, post: Row): TimelineEntryDocument => ({
	owner_id: ownerId,
	post_created_time: post.ts,
	post_id: post.id,
	source,
	post_is_private: post.isPrivate,
	post_expires_at: post.expiresAt,
});

/**
 * Drops a reader's entries older than their newest `timelineBound`, the horizon raised first: a crash
 * between leaves entries below the horizon (reads past it assemble anyway), never a timeline that
 * claims posts it no longer holds.
 */
async function trim(c: PostCollections, ownerId: string): Promise<void> {
	const [edge] = await c.timelineEntries
		.find({ owner_id: ownerId }, { projection: { _id: 0, post_created_time: 1 } })
		.sort({ post_created_time: -1, post_id: -1 })
		.skip(timelineBound - 1)
		.limit(1)
		.toArray();
	if (!edge) return;
	const cutoff = edge.post_created_time;
	await c.timelines.updateOne({ _id: ownerId }, { $max: { horizon: cutoff } });
	await c.timelineEntries.deleteMany({ owner_id: ownerId, post_created_time: { $lt: cutoff } });
}
