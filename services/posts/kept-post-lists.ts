import { Context } from "moleculer";
import { defineCache } from "../../shared/cache/node-caches";
import { audienceCache } from "../../shared/audience";
import { CALLER_SCOPE, ResponseScopeMeta } from "../../shared/caller";
import { Page } from "../../shared/persistence/sql/paging";
import { postCache } from "./post-cache";
import { NewRecipient, PostRow } from "./posts.rows";
import { Reader } from "./posts.sql";
import { postSources, recipientSource, Source, sourceKey } from "./timeline-sources";

/**
 * A name for invalidations (no node holds this cache): the sources a list of posts is read from. A write putting a
 * post into lists announces its sources before it answers, and a kept page names the sources it read, so that the
 * gateway drops exactly the pages a new post, recipient or tag could join, on every node.
 */
export const postListSources = defineCache<object>("postListSources", { max: 1, ttlMs: 1 });

const context = (id: string) => `context:${id}`;
/** The key of the lists of a tag's posts. */
export const tagKey = (name: string) => `tag:${name.toLowerCase()}`;
const allPosts = "all";

/**
 * The lists a new post joins: its timeline sources (timeline-sources.ts: its author, context and
 * recipients as readers follow them), its context's wall, its tags', all posts.
 */
export function postListKeys(post: PostRow, tags: readonly string[], recipients: readonly NewRecipient[]): string[] {
	return [
		...postSources(post, recipients).map(sourceKey),
		...(post.ContextId ? [context(post.ContextId)] : []),
		...tags.map(tagKey),
		allPosts,
	];
}

/** The key of the timeline source a recipient is. */
export const recipientKey = (recipient: NewRecipient) => sourceKey(recipientSource(recipient));

/**
 * The sources of a search, as `PostLists.searchByTag` reads them: its tags (or context, or all posts), and what reaches
 * the reader privately.
 */
export function searchSources(reader: Reader, tags: readonly string[], contextId: string | undefined): string[] {
	const listed = contextId ? [context(contextId)] : tags.length ? tags.map(tagKey) : [allPosts];
	if (reader.admin) return listed;
	const reach: Source[] = [
		...(reader.userId ? [{ kind: "self" as const, id: reader.userId }] : []),
		...reader.networks.map(id => ({ kind: "member" as const, id })),
	];
	return [...listed, ...reach.map(sourceKey)];
}

/**
 * Lets the gateway keep this page for this caller alone until a write drops what it was read from (its posts, the
 * reader's audience, its sources, the users' names), never past the first expiry among its posts. First pages only:
 * what a deep offset skips could expire and shift it, and first pages are what is read again and again.
 */
export function keepPostList(
	ctx: Context,
	page: Page,
	posts: readonly PostRow[],
	audienceOf: string | undefined,
	sources: string[],
): void {
	if (page.Offset > 0) return;
	const expiries = posts.flatMap(post => (post.ExpirationDate === undefined ? [] : [post.ExpirationDate]));
	const meta: ResponseScopeMeta = {
		responseScope: CALLER_SCOPE,
		responseRecords: {
			[postCache.name]: [...posts.map(post => post.Id), ...(page.AfterId ? [page.AfterId] : [])],
			[postListSources.name]: [...new Set(sources)],
			...(audienceOf ? { [audienceCache.name]: [audienceOf] } : {}),
		},
		...(expiries.length ? { responseExpiresAt: Math.min(...expiries) } : {}),
	};
	Object.assign(ctx.meta, meta);
}
