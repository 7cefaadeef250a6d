import { SqlDatabase, SqlDialect, SqlExecutor } from "../../shared/persistence/sql/database";
import { Anchor, anchorOf, Page } from "../../shared/persistence/sql/paging";
import { PostRow, postColumns, postFromRow } from "./posts.rows";
import { notWrittenBySql, Params, Reader, reachOf, visibleSql } from "./posts.sql";
import { Selector } from "./timeline-sources";

/**
 * One part of a list of posts that an index serves newest first: its rows are (post id, post
 * created_time), and its own top (Offset + Limit) is read by walking that index and stopping. A list
 * is the union of its parts, cut to the page: whatever the data's size, a page costs about
 * (parts × page) index entries, never a scan of all posts.
 */
interface Part {
	/** The table and its alias. */
	from: string;
	id: string;
	time: string;
	expiresAt: string;
	isPrivate: string;
	/** The post's author, where the part's rows carry it (else it is looked up by id when authors are excluded). */
	author?: string;
	/** Its index holds a post more than once (a timeline entry per source that brought it): each is read once. */
	repeats?: true;
	/** The part's conditions (an equality on the index's leading columns, then residual ones). */
	where: (params: Params) => string[];
	/** A constant each of its rows carries (the timeline source a backfill files them under). */
	label?: string;
}

const ofPosts = (where: Part["where"]): Part => ({
	from: "posts p",
	id: "p.id",
	time: "p.created_time",
	expiresAt: "p.expires_at",
	isPrivate: "p.is_private",
	author: "p.author_id",
	where,
});
const ofTags = (where: Part["where"]): Part => ({
	from: "post_tags pt",
	id: "pt.post_id",
	time: "pt.post_created_time",
	expiresAt: "pt.post_expires_at",
	isPrivate: "pt.post_is_private",
	where,
});
const ofRecipients = (where: Part["where"]): Part => ({
	from: "post_recipients pr",
	id: "pr.post_id",
	time: "pr.post_created_time",
	expiresAt: "pr.post_expires_at",
	isPrivate: "pr.post_is_private",
	where,
});
/**
 * A reader's home timeline: the entries pushed to it, a private one only while it still comes from one of the reader's
 * sources.
 */
const ofTimeline = (ownerId: string, sourceKeys: string[]): Part => ({
	from: "timeline_entries t",
	id: "t.post_id",
	time: "t.post_created_time",
	expiresAt: "t.post_expires_at",
	isPrivate: "t.post_is_private",
	repeats: true,
	where: params => [
		`t.owner_id = ${params.shared("owner", ownerId)}`,
		`(t.post_is_private = 0 OR ${params.anyOf("t.source", "sourceKeys", sourceKeys)})`,
	],
});

/** The part a selector reads (timeline-sources.ts): an index range of posts by author or context, or of recipients. */
export function partOf({ by, id, publicOnly }: Selector, label?: string): Part {
	const privacy = (column: string) => (publicOnly ? [`${column} = 0`] : []);
	const part =
		by === "recipient"
			? ofRecipients(params => [`pr.recipient_id = ${params.add(id)}`, ...privacy("pr.post_is_private")])
			: ofPosts(params => [
					`p.${by === "author" ? "author_id" : "context_id"} = ${params.add(id)}`,
					...privacy("p.is_private"),
				]);
	return { ...part, label };
}

/** SQLite allows 500 terms in a compound SELECT; a longer union is run in several statements and merged. */
const partsPerStatement = 200;

/**
 * Where a list's page lies: the time now (expiry), the cursor's anchor, and how many each part yields at most (Offset +
 * Limit).
 */
export interface Window {
	now: number;
	anchor?: Anchor;
	take: number;
	/** Whose posts the page leaves out (the reader's blocks either way, and their mutes in their timeline). */
	excluded: readonly string[];
}

/** A post a part found: its id and time (the merge's order). */
export interface Hit {
	id: string;
	ts: number;
}

/**
 * A LIMIT written into the statement, not bound: SQLite stops its merge early only for a constant limit. A page's
 * Limit and Offset are validated integers; this checks it again, since it becomes SQL text.
 */
function limitLiteral(n: number): string {
	if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
	return String(n);
}

/**
 * "The part's row is by none of `authors`", inside the part, so that a page cut by its LIMIT has no holes: from the
 * part's own author column, else a lookup of its post by primary key (only for readers who exclude anyone).
 */
function notExcludedSql(part: Part, params: Params, authors: readonly string[]): string[] {
	if (authors.length === 0) return [];
	if (part.author) return [notWrittenBySql(part.author, authors, params, "excluded")!];
	return [
		`NOT EXISTS (SELECT 1 FROM posts xp WHERE xp.id = ${part.id} AND ${params.anyOf("xp.author_id", "excluded", authors)})`,
	];
}

/** A part's rows after the cursor, unordered and unlimited: SQLite's merge reads them in index order, lazily. */
function partRowsSql(part: Part, params: Params, window: Window): string {
	const conditions = [
		...part.where(params),
		`${part.expiresAt} > ${params.shared("now", window.now)}`,
		...notExcludedSql(part, params, window.excluded),
	];
	if (window.anchor)
		conditions.push(
			`(${part.time}, ${part.id}) < (${params.shared("anchorTime", window.anchor.time)}, ${params.shared("anchorId", window.anchor.id)})`,
		);
	// A labelled row carries what a timeline entry copies of its post.
	const label =
		part.label === undefined
			? ""
			: `, CAST(${params.add(part.label)} AS TEXT) AS label, ${part.isPrivate} AS private, ${part.expiresAt} AS expires`;
	const distinct = part.repeats ? "DISTINCT " : "";
	return `SELECT ${distinct}${part.id} AS id, ${part.time} AS ts${label} FROM ${part.from} WHERE ${conditions.join(" AND ")}`;
}

/**
 * The union's first `take` rows, newest first; UNION, not UNION ALL, so that a post in several parts is listed once.
 * SQLite merges one compound SELECT's parts in index order and stops at `take`; PostgreSQL would read each part whole
 * before the union's sort, so there each part is first cut at `take` by its index.
 */
function topOfUnionSql(
	parts: Part[],
	params: Params,
	window: Window,
	dialect: SqlDialect,
	cut = `LIMIT ${limitLiteral(window.take)}`,
): string {
	const order = "ORDER BY ts DESC, id DESC";
	if (dialect.name === "sqlite")
		return `${parts.map(part => partRowsSql(part, params, window)).join(" UNION ")} ${order} ${cut}`;
	const take = limitLiteral(window.take);
	const columns = parts[0].label === undefined ? "id, ts" : "id, ts, label, private, expires";
	return `SELECT ${columns} FROM (${parts.map((part, i) => `SELECT ${columns} FROM (${partRowsSql(part, params, window)} ${order} LIMIT ${take}) AS part${i}`).join(" UNION ")}) AS u ${order} ${cut}`;
}

/** Newest first: by time, then by id. */
export const newestFirst = (a: Hit, b: Hit) => b.ts - a.ts || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The ids once each, in their order, without empty ones. */
export const unique = (ids: readonly string[]) => [...new Set(ids.filter(Boolean))];

/** A post a labelled part found, under its part's label, with its privacy and expiry. */
export interface LabelledHit extends Hit {
	label: string;
	isPrivate: boolean;
	expiresAt: number;
}

/** What every engine's lists offer the posts service (the rest of PostLists serves the SQL timelines). */
export type PostListsContract = Pick<PostLists, "searchByTag" | "userPosts">;

/** Timelines, walls and searches: newest first, after an optional cursor, visible to their reader. */
export class PostLists {
	constructor(private readonly db: SqlDatabase) {}

	/**
	 * SearchPostsByTag: posts having any of `tags` (all posts when none), optionally in one context.
	 * Per tag, its public posts from the tag index; the reader's own private posts, and the private
	 * posts addressed to them or their networks, from the author and recipient indexes. A context (a
	 * wall) is one range of the context index, its private posts kept only for their audience.
	 */
	async searchByTag(reader: Reader, tags: string[], contextId: string | undefined, page: Page): Promise<PostRow[]> {
		const names = unique(tags);
		const tagged = (postId: string) => (params: Params) =>
			names.length
				? [
						`EXISTS (SELECT 1 FROM post_tags st WHERE st.post_id = ${postId} AND ${params.anyOf("st.name", "tags", names)})`,
					]
				: [];
		let parts: Part[];
		if (contextId) {
			parts = [
				ofPosts(params => [
					`p.context_id = ${params.add(contextId)}`,
					visibleSql(reader, params),
					...tagged("p.id")(params),
				]),
			];
		} else if (reader.admin) {
			parts = names.length
				? names.flatMap(name =>
						[0, 1].map(privacy =>
							ofTags(params => [`pt.name = ${params.add(name)}`, `pt.post_is_private = ${privacy}`]),
						),
					)
				: [0, 1].map(privacy => ofPosts(() => [`p.is_private = ${privacy}`]));
		} else {
			parts = names.length
				? names.map(name => ofTags(params => [`pt.name = ${params.add(name)}`, "pt.post_is_private = 0"]))
				: [ofPosts(() => ["p.is_private = 0"])];
			const me = reader.userId;
			if (me)
				parts.push(
					ofPosts(params => [
						`p.author_id = ${params.shared("me", me)}`,
						"p.is_private = 1",
						...tagged("p.id")(params),
					]),
				);
			for (const id of unique(reachOf(reader)))
				parts.push(
					ofRecipients(params => [
						`pr.recipient_id = ${params.add(id)}`,
						"pr.post_is_private = 1",
						...tagged("pr.post_id")(params),
					]),
				);
		}
		return this.page(parts, reader, page);
	}

	/**
	 * UserPosts: what a user wrote that the reader may see, from the author index (public, then private ones visible to
	 * the reader).
	 */
	async userPosts(reader: Reader, authorId: string, page: Page): Promise<PostRow[]> {
		const by = (params: Params) => `p.author_id = ${params.shared("author", authorId)}`;
		return this.page(
			[
				ofPosts(params => [by(params), "p.is_private = 0"]),
				ofPosts(params => [by(params), "p.is_private = 1", visibleSql(reader, params)]),
			],
			reader,
			page,
		);
	}

	/**
	 * A page of a reader's home timeline as pushed, with the sources it pulls (`pulled`) read from their own indexes,
	 * without the posts of `excluded` (the reader's hidden and muted users).
	 */
	async timeline(
		reader: Reader & { userId: string },
		sourceKeys: string[],
		pulled: Selector[],
		page: Page,
		excluded: readonly string[],
	): Promise<PostRow[]> {
		return this.page(
			[ofTimeline(reader.userId, sourceKeys), ...pulled.map(selector => partOf(selector))],
			reader,
			page,
			excluded,
		);
	}

	/** The same page assembled from every source's own index: what a timeline's reader gets past its end. */
	async assembled(reader: Reader, selectors: Selector[], page: Page, excluded: readonly string[]): Promise<PostRow[]> {
		return this.page(
			selectors.map(selector => partOf(selector)),
			reader,
			page,
			excluded,
		);
	}

	/** The newest `take` (post, label) pairs of labelled selectors, unexpired: what a timeline's backfill copies. */
	async latest(
		selectors: Array<{ selector: Selector; label: string }>,
		take: number,
		db: SqlExecutor = this.db,
	): Promise<LabelledHit[]> {
		const hits: LabelledHit[] = [];
		const window: Window = { now: Date.now(), take, excluded: [] };
		for (let i = 0; i < selectors.length; i += partsPerStatement) {
			const params = new Params(this.db.dialect);
			const parts = selectors.slice(i, i + partsPerStatement).map(({ selector, label }) => partOf(selector, label));
			const rows = await db.all<Hit & { label: string; private: number | boolean; expires: number }>(
				topOfUnionSql(parts, params, window, db.dialect),
				params.values,
			);
			for (const row of rows)
				hits.push({
					id: row.id,
					ts: Number(row.ts),
					label: row.label,
					isPrivate: !!row.private,
					expiresAt: Number(row.expires),
				});
		}
		return hits.sort(newestFirst).slice(0, take);
	}

	/**
	 * The page of the union of `parts`, without the posts of `excluded` (by default whom the reader hides): one statement
	 * when the union is short enough, else merged in order.
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
		if (parts.length <= partsPerStatement) {
			const params = new Params(this.db.dialect);
			const top = topOfUnionSql(
				parts,
				params,
				window,
				this.db.dialect,
				`LIMIT ${limitLiteral(page.Limit)} OFFSET ${params.add(page.Offset)}`,
			);
			const sql = `SELECT ${postColumns} FROM (${top}) AS hit JOIN posts p ON p.id = hit.id ORDER BY p.created_time DESC, p.id DESC`;
			return (await this.db.all(sql, params.values)).map(postFromRow);
		}
		const hits = new Map<string, Hit>();
		for (let i = 0; i < parts.length; i += partsPerStatement) {
			const params = new Params(this.db.dialect);
			const top = topOfUnionSql(parts.slice(i, i + partsPerStatement), params, window, this.db.dialect);
			for (const hit of await this.db.all<Hit>(top, params.values)) {
				hits.set(hit.id, { id: hit.id, ts: Number(hit.ts) });
			}
		}
		const ids = [...hits.values()]
			.sort(newestFirst)
			.slice(page.Offset, window.take)
			.map(hit => hit.id);
		if (ids.length === 0) return [];
		const rows = (
			await this.db.all(`SELECT ${postColumns} FROM posts p WHERE ${this.db.dialect.anyOf("p.id", "$1")}`, [
				this.db.dialect.listParam(ids),
			])
		).map(postFromRow);
		const byId = new Map(rows.map(row => [row.Id, row]));
		return ids.flatMap(id => (byId.has(id) ? [byId.get(id)!] : []));
	}

	/** Where a cursor resumes: a post the reader may see (else a 400 on AfterId, as for a post that does not exist). */
	private async anchor(reader: Reader, page: Page): Promise<Anchor | undefined> {
		if (!page.AfterId) return undefined;
		const params = new Params(this.db.dialect);
		params.add(page.AfterId);
		const visible = visibleSql(reader, params);
		return anchorOf(
			this.db,
			page,
			`SELECT p.created_time AS time, p.id AS id FROM posts p WHERE p.id = $1 AND ${visible}`,
			params.values.slice(1),
		);
	}
}
