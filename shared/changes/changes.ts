import { Context } from "moleculer";
import { CacheDefinition } from "../cache/node-caches";
import { invalidate } from "../cache/invalidation";
import { announceDomain } from "../cache/domain-changes";
import { Domain } from "../domains";
import { Announcing, announce, StreamRecordType } from "../streams/stream-event";

/**
 * What a write changed, stated once by the write after it committed and before it answers
 * (docs/architecture.md, Declared changes). Everything else follows from it: the domain's kept
 * answers, the named caches' entries on every node, and what users' open streams hear.
 */
export interface Changes {
	/** Where the write landed: kept answers that depend on the whole domain (`cacheResponse`) are stale. */
	domain: Domain;
	/** Entries of node caches that hold the old record, by key (undefined keys are skipped). */
	drops?: readonly CacheDrop[];
	/** What happened, for the streams it may reach (each may drop the kept lists it joins). */
	events?: readonly StreamAnnouncement[];
}

export interface CacheDrop {
	cache: CacheDefinition<object>;
	keys: ReadonlyArray<string | undefined>;
}

export interface StreamAnnouncement extends Announcing {
	type: StreamRecordType;
	body: unknown;
	keys: readonly string[];
}

const declared = new WeakSet<Context>();

/**
 * States what `ctx`'s write changed and carries it out: caches drop here at once, then every node hears (one packet
 * per turn), awaited so that the news leaves ahead of the answer (bus-barrier.ts).
 */
export async function changed(ctx: Context, ...changes: Changes[]): Promise<void> {
	declared.add(ctx);
	const domains = new Set(changes.map(change => change.domain));
	await Promise.all([
		...[...domains].map(domain => announceDomain(ctx.broker, domain)),
		...changes.flatMap(change => (change.drops ?? []).map(drop => invalidate(ctx, drop.cache, drop.keys))),
		...changes.flatMap(change =>
			(change.events ?? []).map(event => announce(ctx, event.type, event.body, event.keys, event)),
		),
	]);
}

/** States that `ctx`'s write changed nothing after all (a sign-out without a session, Auth asking who is signed in). */
export function changedNothing(ctx: Context): void {
	declared.add(ctx);
}

/** Whether the write `ctx` runs has stated what it changed (the operations middleware asks, after a write). */
export function hasDeclaredChanges(ctx: Context): boolean {
	return declared.has(ctx);
}
