import { createHash } from "node:crypto";
import { Audience } from "../../shared/audience";
import { NewRecipient, PostRow } from "./posts.rows";

/**
 * What belongs in a reader's home timeline (PRODUCT.md §4a): a post sharing a source with those the reader follows.
 * The push, the pull of large sources, the backfill, the assembly past a timeline's end and the event streams all
 * read these. `self:<user>`: own posts and those addressed to the user; `follows:<id>`: public posts by, or in the
 * context of, one connected or subscribed to; `member:<network>`: public posts in its context, all addressed to it.
 */
export type SourceKind = "self" | "follows" | "member";

export interface Source {
	kind: SourceKind;
	id: string;
}

/**
 * Where a source's posts lie: an index range of posts by author, by context, or addressed to a recipient; public ones
 * only, or all.
 */
export interface Selector {
	by: "author" | "context" | "recipient";
	id: string;
	publicOnly: boolean;
}

/**
 * The key a source is stored and announced by (shared/audience.ts names the graph's changes to readers by the same
 * keys).
 */
export const sourceKey = (source: Source): string => `${source.kind}:${source.id}`;

export function sourceOfKey(key: string): Source {
	const at = key.indexOf(":");
	return { kind: key.slice(0, at) as SourceKind, id: key.slice(at + 1) };
}

/**
 * Sources by the audience they were made of: an audience the node's cache holds is the same object from read to read.
 */
const ofAudience = new WeakMap<Audience, Source[]>();

/** A reader's sources, made once per audience object (and so their digest too). */
export function readerSourcesOf(userId: string, audience: Audience): Source[] {
	let sources = ofAudience.get(audience);
	if (!sources || sources[0].id !== userId) ofAudience.set(audience, (sources = readerSources(userId, audience)));
	return sources;
}

/** The sources a reader follows: themselves, whom and what they are connected or subscribed to, their networks. */
export function readerSources(userId: string, { people, networks }: Audience): Source[] {
	const sources: Source[] = [{ kind: "self", id: userId }];
	for (const id of new Set(people)) if (id !== userId) sources.push({ kind: "follows", id });
	for (const id of new Set(networks)) sources.push({ kind: "member", id });
	return sources;
}

/** The sources a post comes from: a private post only its author's and its recipients'. */
export function postSources(
	post: Pick<PostRow, "AuthorId" | "IsPrivate" | "ContextId">,
	recipients: readonly NewRecipient[],
): Source[] {
	const sources: Source[] = [{ kind: "self", id: post.AuthorId }];
	if (!post.IsPrivate) {
		sources.push({ kind: "follows", id: post.AuthorId });
		if (post.ContextId) sources.push({ kind: "follows", id: post.ContextId }, { kind: "member", id: post.ContextId });
	}
	sources.push(...recipients.map(recipientSource));
	return unique(sources);
}

/** The source a recipient makes of a post: a user's own, or a network's members'. */
export const recipientSource = (recipient: NewRecipient): Source => ({
	kind: recipient.type === "Network" ? "member" : "self",
	id: recipient.id,
});

/** The index ranges a source's posts are read from, the inverse of `postSources`. */
export function selectorsOf({ kind, id }: Source): Selector[] {
	switch (kind) {
		case "self":
			return [
				{ by: "author", id, publicOnly: false },
				{ by: "recipient", id, publicOnly: false },
			];
		case "follows":
			return [
				{ by: "author", id, publicOnly: true },
				{ by: "context", id, publicOnly: true },
			];
		case "member":
			return [
				{ by: "context", id, publicOnly: true },
				{ by: "recipient", id, publicOnly: false },
			];
	}
}

/** Digests by the sources array they were made of (readerSourcesOf keeps one array per cached audience). */
const digests = new WeakMap<readonly Source[], string>();

/** A fingerprint of a reader's sources: a timeline built for other sources is brought in line before it is read. */
export function sourcesDigest(sources: readonly Source[]): string {
	let digest = digests.get(sources);
	if (digest === undefined) {
		digest = createHash("sha1").update(sources.map(sourceKey).sort().join("\n")).digest("base64url");
		digests.set(sources, digest);
	}
	return digest;
}

function unique(sources: Source[]): Source[] {
	const byKey = new Map(sources.map(source => [sourceKey(source), source]));
	return [...byKey.values()];
}
