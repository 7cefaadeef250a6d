import { SqlDatabase, SqlExecutor } from "../../shared/persistence/sql/database";
import { Page } from "../../shared/persistence/sql/paging";
import { PostLists } from "./post-lists";
import { noExpiry, PostRow } from "./posts.rows";
import { insertMany, Params, Reader } from "./posts.sql";
import { selectorsOf, Source, sourceKey, sourceOfKey, sourcesDigest } from "./timeline-sources";

/**
 * Entries a timeline keeps at least (Mastodon keeps 800); a read deeper than what it holds is assembled from the
 * sources.
 */
export const timelineBound = 800;

/**
 * How often a push to a reader also trims their timeline back to the bound (each trim walks `timelineBound` entries).
 */
export const trimChance = 1 / 64;

/** Entries inserted by one statement (6 values each; PostgreSQL binds at most 65,535). */
const entriesPerStatement = 1000;

/** Who gets a post: a reader and the source it reaches them through. */
export interface TimelineEntry {
	ownerId: string;
	source: string;
}

/** Whom a post reaches: its entries, and the sources whose audience was too large to push to. */
export interface FanOut {
	entries: TimelineEntry[];
	oversized: string[];
}

/** A reader's timeline as stored: below `horizon` it may lack posts; `digest` names the sources it was built for. */
interface TimelineState {
	horizon: number;
	digest: string;
}

/**
 * Home timelines written when a post is written: a post's entries go in with the post (the same
 * transaction), a reader's page is one range of their entries plus the sources too large to push
 * (pulled from their own index), and a timeline built for other sources (a follow, a membership
 * since) is brought in line before it is read.
 */
export class Timelines {
	constructor(
		private readonly db: SqlDatabase,
		private readonly lists: PostLists,
	) {}

	/**
	 * A page of a reader's home timeline: from their entries while the page lies above the horizon, else assembled from
	 * the sources; never a post of a user the reader hides or mutes.
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
		const stored = await this.state(reader.userId);
		const state = stored?.digest === digest ? stored : await this.reconcile(reader.userId, sources, digest);
		const pulled = !stored || stored.anyPulled ? await pulledAmong(this.db, keys) : new Set<string>();
		const pulledSelectors = sources.filter(s => pulled.has(sourceKey(s))).flatMap(selectorsOf);
		const rows = await this.lists.timeline(reader, keys, pulledSelectors, page, excluded);
		if (servedFromTimeline(state.horizon, rows, page)) return rows;
		return this.lists.assembled(reader, sources.flatMap(selectorsOf), page, excluded);
	}

	/** The reader's timeline as stored, and whether any source is pulled at all (one statement: on most days none is). */
	private async state(ownerId: string): Promise<(TimelineState & { anyPulled: boolean }) | undefined> {
		const row = await this.db.get<{ horizon: number; sources_digest: string; any_pulled: number }>(
			"SELECT horizon, sources_digest, EXISTS (SELECT 1 FROM pulled_sources) AS any_pulled FROM timelines WHERE owner_id = $1",
			[ownerId],
		);
		return row && { horizon: Number(row.horizon), digest: row.sources_digest, anyPulled: !!row.any_pulled };
	}

	/**
	 * Brings a reader's timeline to their sources now: the entries of sources they left go, the
	 * newest `timelineBound` posts of sources they joined come in (all of them, for a first build),
	 * and the horizon rises to where that backfill stopped. Idempotent: a reader's concurrent reads
	 * may both run it.
	 */
	async reconcile(ownerId: string, sources: Source[], digest = sourcesDigest(sources)): Promise<TimelineState> {
		const now = sources.map(sourceKey);
		// One transaction, reads included: on SQLite no post is written meanwhile, so none can miss both its push and the
		// backfill.
		return this.db.transaction(async tx => {
			const row = await tx.get<{ horizon: number; sources: string }>(
				"SELECT horizon, sources FROM timelines WHERE owner_id = $1",
				[ownerId],
			);
			const pulled = await pulledAmong(tx, now);
			const before = new Set(row ? (JSON.parse(row.sources) as string[]) : []);
			const left = [...before].filter(key => !now.includes(key));
			const joined = now.filter(key => !before.has(key) && !pulled.has(key));
			if (left.length) {
				const params = new Params(tx.dialect);
				await tx.run(
					`DELETE FROM timeline_entries WHERE owner_id = ${params.add(ownerId)} AND ${params.anyOf("source", "left", left)}`,
					params.values,
				);
			}
			const labelled = joined.flatMap(key => selectorsOf(sourceOfKey(key)).map(selector => ({ selector, label: key })));
			const hits = labelled.length ? await this.lists.latest(labelled, timelineBound, tx) : [];
			// The backfill stopped at its bound: older posts of those sources are not here, down to the last one's time.
			const horizon = Math.max(
				row ? Number(row.horizon) : 0,
				hits.length === timelineBound ? hits[hits.length - 1].ts + 1 : 0,
			);
			await tx.run(
				`INSERT INTO timelines (owner_id, horizon, sources_digest, sources) VALUES ($1, $2, $3, $4)
				 ON CONFLICT (owner_id) DO UPDATE SET horizon = excluded.horizon, sources_digest = excluded.sources_digest, sources = excluded.sources`,
				[ownerId, horizon, digest, JSON.stringify(now)],
			);
			await insertEntries(
				tx,
				hits.map(hit => ({
					ownerId,
					source: hit.label,
					postId: hit.id,
					ts: hit.ts,
					isPrivate: hit.isPrivate,
					expiresAt: hit.expiresAt,
				})),
			);
			return { horizon, digest };
		});
	}
}

/**
 * Inside the transaction that writes a post or a recipient of it: the post's entries in the
 * timelines built (read once: the others are built from their sources at their first read, so a
 * reader who never reads costs a post nothing), and the sources found too large to push, marked to
 * be pulled by their readers from now on.
 */
export async function pushEntries(
	tx: SqlExecutor,
	post: Pick<PostRow, "Id" | "CreatedTime" | "IsPrivate" | "ExpirationDate">,
	{ entries, oversized }: FanOut,
): Promise<void> {
	for (const source of oversized)
		await tx.run("INSERT INTO pulled_sources (source, marked_time) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
			source,
			Date.now(),
		]);
	if (entries.length === 0) return;
	const params = new Params(tx.dialect);
	const built = new Set(
		(
			await tx.all<{ owner_id: string }>(
				`SELECT owner_id FROM timelines WHERE ${params.anyOf("owner_id", "owners", [...new Set(entries.map(e => e.ownerId))])}`,
				params.values,
			)
		).map(r => r.owner_id),
	);
	const copied = {
		postId: post.Id,
		ts: post.CreatedTime,
		isPrivate: post.IsPrivate,
		expiresAt: post.ExpirationDate ?? noExpiry,
	};
	await insertEntries(
		tx,
		entries.filter(e => built.has(e.ownerId)).map(e => ({ ...e, ...copied })),
	);
	for (const owner of built) if (Math.random() < trimChance) await trim(tx, owner);
}

/**
 * Whether a page read from a timeline is whole: it lacks nothing when it lies above the horizon (or the timeline lacks
 * nothing).
 */
export function servedFromTimeline(horizon: number, rows: readonly PostRow[], page: Page): boolean {
	const last = rows.at(-1);
	return horizon === 0 || (rows.length === page.Limit && (!last || last.CreatedTime >= horizon));
}

/** Which of these sources are pulled. */
async function pulledAmong(db: SqlExecutor, keys: string[]): Promise<Set<string>> {
	const params = new Params(db.dialect);
	const rows = await db.all<{ source: string }>(
		`SELECT source FROM pulled_sources WHERE ${params.anyOf("source", "keys", keys)}`,
		params.values,
	);
	return new Set(rows.map(r => r.source));
}

/** A timeline entry as stored: its reader, source, and what it copies of its post. */
interface EntryRow {
	ownerId: string;
	source: string;
	postId: string;
	ts: number;
	isPrivate: boolean;
	expiresAt: number;
}

/** Timeline entries, many to a statement; one there already stays. */
async function insertEntries(tx: SqlExecutor, entries: readonly EntryRow[]): Promise<void> {
	const columns = ["owner_id", "post_created_time", "post_id", "source", "post_is_private", "post_expires_at"];
	for (let i = 0; i < entries.length; i += entriesPerStatement) {
		const params = new Params(tx.dialect);
		const sql = insertMany(
			"timeline_entries",
			columns,
			entries.slice(i, i + entriesPerStatement),
			e => [e.ownerId, e.ts, e.postId, e.source, e.isPrivate, e.expiresAt],
			" ON CONFLICT DO NOTHING",
			params,
		);
		await tx.run(sql, params.values);
	}
}

/** Drops a reader's entries older than their newest `timelineBound`, and raises their horizon to match. */
async function trim(tx: SqlExecutor, ownerId: string): Promise<void> {
	const edge = await tx.get<{ ts: number }>(
		`SELECT post_created_time AS ts FROM timeline_entries WHERE owner_id = $1 ORDER BY post_created_time DESC LIMIT 1 OFFSET ${timelineBound - 1}`,
		[ownerId],
	);
	if (!edge) return;
	const cutoff = Number(edge.ts);
	await tx.run("DELETE FROM timeline_entries WHERE owner_id = $1 AND post_created_time < $2", [ownerId, cutoff]);
	await tx.run(`UPDATE timelines SET horizon = CASE WHEN horizon < $2 THEN $2 ELSE horizon END WHERE owner_id = $1`, [
		ownerId,
		cutoff,
	]);
}
