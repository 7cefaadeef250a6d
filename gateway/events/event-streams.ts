import { randomBytes } from "node:crypto";
import { ServerResponse } from "node:http";
import { Context, Logger, Service, ServiceBroker } from "moleculer";
import { Caller, callerOf, isAdmin } from "../../shared/caller";
import { StreamEvent, streamRecords } from "../../shared/streams/stream-event";
import { writerFor } from "../../shared/wire/write";
import { failures, PlazaError } from "../../shared/errors";
import { onInvalidation } from "../../shared/cache/node-caches";
import { sessionCache } from "../../shared/sessions";
import { apiKeyCache } from "../../shared/api-keys";
import { profileCache } from "../../shared/profiles";
import { openStreamsGauge } from "../../shared/metrics";
import { ValueSeries } from "../../shared/observability/metric-series";
import { wireJson } from "../respond";
import { Missed, Replayable, ReplayBuffer } from "./replay-buffer";
import { ListeningScope, Subscription, SubscriptionMeta } from "./subscription";

/**
 * What a user's stream listens for (event keys), its reach (who it is, for private events), and whose words it never
 * gets (`hidden`: blocked either way) or gets no posts of (`muted`).
 */
export interface StreamScope {
	keys: string[];
	reach: string[];
	hidden: string[];
	muted: string[];
}

/** Where scopes come from: the domain says what a user's stream holds, and when it may have changed. */
export interface StreamScopes {
	scopeOf(ctx: Context, userId: string): Promise<StreamScope>;
	onChange(broker: ServiceBroker, changed: (userIds: readonly string[]) => void): void;
}

export interface StreamTimings {
	heartbeatIntervalMs: number;
	idleTimeoutMs: number;
	replayMax: number;
	replayMaxAgeMs: number;
}

/** ServiceStack's defaults (10 s heartbeats, 30 s idle); five minutes or 10,000 events of replay. */
export const defaultStreamTimings: StreamTimings = {
	heartbeatIntervalMs: 10_000,
	idleTimeoutMs: 30_000,
	replayMax: 10_000,
	replayMaxAgeMs: 300_000,
};

/** A new stream as the endpoint found it: who, from where, on which channels, after which event. */
export interface StreamRequest {
	ctx: Context;
	res: ServerResponse;
	address?: string;
	baseUrl: string;
	channels: string[];
	lastEventId?: string;
}

const noScope: StreamScope = { keys: [], reach: [], hidden: [], muted: [] };

/** A scope as the sets a stream asks. */
const listening = (scope: StreamScope): ListeningScope => ({
	keys: new Set(scope.keys),
	reach: new Set(scope.reach),
	hidden: new Set(scope.hidden),
	muted: new Set(scope.muted),
});

/**
 * This gateway's open event streams (ServiceStack Server Events): indexed by subscription id, by
 * user and by the keys they listen for, so that an event costs the streams it reaches, not all.
 * Events come from the bus (every gateway hears every one) and are written where a stream's keys
 * meet the event's and its reach meets the event's readers; a bounded buffer replays them.
 */
export class EventStreams {
	private readonly byId = new Map<string, Subscription>();

	private readonly byKey = new Map<string, Set<Subscription>>();

	private readonly byUser = new Map<string, Set<Subscription>>();

	private readonly byOwner = new Map<string, Set<Subscription>>();

	private readonly gauge: ValueSeries | undefined;

	private readonly replay: ReplayBuffer;

	private readonly sweeper: NodeJS.Timeout;

	private readonly logger: Logger;

	private anonymous = 0;

	/** Scope refreshes started, and each user's latest: an older one finishing late leaves the streams to it. */
	private refreshes = 0;

	private readonly latestRefresh = new Map<string, number>();

	constructor(
		private readonly service: Service,
		private readonly scopes: StreamScopes,
		/** Streams one caller may hold open here (EVENT_STREAMS_PER_CALLER). */
		private readonly perCaller: number,
		readonly timings: StreamTimings = defaultStreamTimings,
	) {
		this.logger = service.logger;
		this.gauge = openStreamsGauge(service.broker);
		this.replay = new ReplayBuffer(timings.replayMax, timings.replayMaxAgeMs, Date.now() * 1000);
		scopes.onChange(service.broker, userIds => {
			this.refresh(userIds).catch((err: unknown) =>
				this.logger.warn({ event: "stream-scope-failed", error: err }, "Refreshing streams' scopes failed"),
			);
		});
		// Streams end with the credentials that opened them, on every gateway: a session or API key that ends (signed out,
		// expired, taken back, revoked), or a user written to (password, roles, removal) for streams opened with a
		// password, which reconnect to be checked again.
		onInvalidation(service.broker, (cache, keys) => {
			if (cache === sessionCache.name || cache === apiKeyCache.name) {
				const ended = new Set(keys);
				for (const sub of [...this.byId.values()])
					if (sub.credentialKey !== undefined && ended.has(sub.credentialKey)) this.end(sub);
			} else if (cache === profileCache.name) {
				for (const userId of keys)
					for (const sub of [...(this.byUser.get(userId) ?? [])]) if (sub.credentialKey === undefined) this.end(sub);
			}
		});
		// One sweep for all streams: a stream whose client stopped its heartbeats is ended, as ServiceStack does.
		this.sweeper = setInterval(() => this.sweep(), Math.min(5_000, timings.idleTimeoutMs)).unref();
	}

	get size(): number {
		return this.byId.size;
	}

	/**
	 * Opens a stream: headers, cmd.onConnect, onJoin to its user's other streams of its channels, then what it missed.
	 */
	async open(request: StreamRequest): Promise<void> {
		const caller = callerOf(request.ctx);
		const userId = caller?.userId;
		const owner = ownerOf(caller, request.address);
		this.checkRoom(owner);
		// Resolved before the headers: a failure (the graph unreachable) still answers with its status.
		const scope = userId ? await this.scopes.scopeOf(request.ctx, userId) : noScope;
		if (request.res.destroyed) return;
		// Again: streams of the same caller may have opened meanwhile.
		this.checkRoom(owner);
		const id = randomBytes(18).toString("base64url");
		const meta = this.metaOf(caller, request.channels);
		const sub = new Subscription(
			id,
			request.res,
			userId,
			request.address,
			owner,
			caller?.sessionKey ?? caller?.apiKey?.hash,
			request.channels,
			meta,
			listening(scope),
		);
		const { res } = request;
		res.writeHead(200, {
			"Content-Type": "text/event-stream; charset=utf-8",
			"Cache-Control": "no-cache",
			Connection: "keep-alive",
			"X-Accel-Buffering": "no",
		});
		res.socket?.setNoDelay(true);
		this.add(sub);
		res.once("close", () => this.remove(sub));
		const base = request.baseUrl;
		const connect = {
			...meta,
			id,
			unRegisterUrl: `${base}/event-unregister?id=${id}`,
			heartbeatUrl: `${base}/event-heartbeat?id=${id}`,
			updateSubscriberUrl: `${base}/event-subscribers/${id}`,
			heartbeatIntervalMs: String(this.timings.heartbeatIntervalMs),
			idleTimeoutMs: String(this.timings.idleTimeoutMs),
		};
		// Its id is where the stream starts: a reconnect names it, and gets what came after.
		sub.write(Subscription.frame("cmd.onConnect", JSON.stringify(connect), this.replay.head()));
		this.notifyPeers(sub, "onJoin");
		if (request.lastEventId !== undefined) this.replayTo(sub, this.replay.since(Number(request.lastEventId)));
	}

	/** An event from the bus: kept for replay, written to the streams it reaches. */
	deliver(event: StreamEvent): void {
		const schema = Object.hasOwn(streamRecords, event?.type) ? streamRecords[event.type] : undefined;
		if (
			!schema ||
			!Number.isSafeInteger(event.id) ||
			!Array.isArray(event.keys) ||
			!(event.readers === undefined || Array.isArray(event.readers))
		)
			return;
		let rendered: string | undefined;
		const frame = () =>
			(rendered ??= Subscription.frame(`cmd.${event.type}`, wireJson(writerFor(schema)(event.body)), event.id));
		const entry: Replayable = {
			id: event.id,
			type: event.type,
			keys: event.keys,
			readers: event.readers,
			authors: Array.isArray(event.authors) ? event.authors : undefined,
			frame,
		};
		this.replay.add(entry);
		const reached = new Set<Subscription>();
		for (const key of event.keys) this.byKey.get(key)?.forEach(sub => reached.add(sub));
		for (const sub of reached) {
			if (sub.held) sub.held.push(entry);
			else if (mayRead(sub.scope, entry)) sub.write(frame());
		}
	}

	/**
	 * A heartbeat: the stream lives on, and hears cmd.onHeartbeat. Refused with another caller's credentials; taken
	 * without any, as ServiceStack does (ServerEventsClient sends none outside a browser): a stream ends with its
	 * credentials by their own announcements, not by its heartbeats.
	 */
	pulse(id: string, address: string | undefined, caller: Caller | undefined): Subscription {
		const sub = this.accessible(id, address);
		if (caller && sub.meta.isAuthenticated === "true" && ownerOf(caller, address) !== sub.owner)
			throw new PlazaError(403, "Forbidden", `Access to subscription '${id}' is denied`);
		sub.lastPulseAt = Date.now();
		sub.write(Subscription.frame("cmd.onHeartbeat", JSON.stringify(sub.meta)));
		return sub;
	}

	/** Ends a stream (its client stops): its subscription's fields, as ServiceStack answers. */
	unregister(id: string, address: string | undefined): SubscriptionMeta {
		const sub = this.accessible(id, address);
		this.end(sub);
		return sub.meta;
	}

	/** Joins and leaves channels; the user's streams in them hear cmd.onUpdate. */
	update(id: string, address: string | undefined, join: readonly string[], leave: readonly string[]): void {
		const sub = this.accessible(id, address);
		sub.channels = [...new Set([...sub.channels.filter(c => !leave.includes(c)), ...join])];
		sub.meta.channels = sub.channels.join(",");
		this.notifyPeers(sub, "onUpdate");
	}

	/** The streams a caller may know of in these channels (all channels when none): their own; every one for an admin. */
	subscribers(caller: Caller | undefined, channels: readonly string[]): SubscriptionMeta[] {
		const own = isAdmin(caller)
			? [...this.byId.values()]
			: caller?.userId
				? [...(this.byUser.get(caller.userId) ?? [])]
				: [];
		return own
			.filter(sub => channels.length === 0 || sub.channels.some(c => channels.includes(c)))
			.map(sub => sub.meta);
	}

	/** Ends every stream (the gateway stops): clients reconnect elsewhere with their Last-Event-ID. */
	close(): void {
		clearInterval(this.sweeper);
		for (const sub of [...this.byId.values()]) this.end(sub);
	}

	private replayTo(sub: Subscription, missed: Missed): void {
		if ("reload" in missed) {
			// Older than the window: the client must read its feed again (docs/server-events.md).
			sub.write(Subscription.frame("cmd.onReload", JSON.stringify({ windowStart: missed.windowStart })));
			return;
		}
		for (const event of missed.events) if (hears(sub.scope, event)) sub.write(event.frame());
	}

	/**
	 * A subscription its caller may act on: known (else 404) and from the address that opened it (else 403), as
	 * ServiceStack checks.
	 */
	private accessible(id: string, address: string | undefined): Subscription {
		const sub = this.byId.get(id);
		if (!sub) throw new PlazaError(404, "NotFound", `Subscription '${id}' does not exist`);
		if (sub.address !== undefined && sub.address !== address)
			throw new PlazaError(403, "Forbidden", `Access to subscription '${id}' is denied`);
		return sub;
	}

	/**
	 * Presence is private: a stream's joins and leaves reach only its own user's streams sharing a channel (Plaza has no
	 * rule making who is online public).
	 */
	private notifyPeers(sub: Subscription, command: "onJoin" | "onLeave" | "onUpdate"): void {
		const peers = sub.userId ? [...(this.byUser.get(sub.userId) ?? [])] : [sub];
		const json = JSON.stringify(sub.meta);
		for (const channel of sub.channels) {
			const frame = Subscription.frame(`${channel}@cmd.${command}`, json);
			for (const peer of peers) if (peer.channels.includes(channel)) peer.write(frame);
		}
	}

	/** 429 when the caller holds as many streams here as it may: one its client left is ended within the idle timeout. */
	private checkRoom(owner: string): void {
		if ((this.byOwner.get(owner)?.size ?? 0) < this.perCaller) return;
		throw failures.tooManyRequests(
			Math.ceil(this.timings.idleTimeoutMs / 1000),
			`At most ${this.perCaller} event streams may be open at once per caller; close one first`,
		);
	}

	private metaOf(caller: Caller | undefined, channels: string[]): SubscriptionMeta {
		const anonymous = caller?.userId ? undefined : `-${++this.anonymous}`;
		return {
			userId: caller?.userId ?? anonymous ?? "",
			isAuthenticated: caller ? "true" : "false",
			displayName: caller?.displayName ?? caller?.userName ?? (isAdmin(caller) ? "admin" : `user${anonymous}`),
			channels: channels.join(","),
			profileUrl: "",
		};
	}

	private add(sub: Subscription): void {
		this.byId.set(sub.id, sub);
		if (this.gauge) this.gauge.value = this.byId.size;
		indexed(this.byOwner, sub.owner).add(sub);
		if (sub.userId) indexed(this.byUser, sub.userId).add(sub);
		for (const key of sub.scope.keys) indexed(this.byKey, key).add(sub);
	}

	private remove(sub: Subscription): void {
		if (!this.byId.delete(sub.id)) return;
		if (this.gauge) this.gauge.value = this.byId.size;
		sub.closed = true;
		unindex(this.byOwner, sub.owner, sub);
		if (sub.userId) unindex(this.byUser, sub.userId, sub);
		for (const key of sub.scope.keys) unindex(this.byKey, key, sub);
		this.notifyPeers(sub, "onLeave");
	}

	private end(sub: Subscription): void {
		this.remove(sub);
		sub.res.end();
	}

	/**
	 * Whom these users follow or hide changed: their streams listen for their new scope from now on, and what they hear
	 * meanwhile is held until it is read, then written if the new scope lets them read it (a block hides at once).
	 */
	private async refresh(userIds: readonly string[]): Promise<void> {
		const started = new Map<string, number>();
		for (const userId of userIds) {
			const subs = this.byUser.get(userId);
			if (!subs?.size) continue;
			started.set(userId, (this.refreshes += 1));
			this.latestRefresh.set(userId, this.refreshes);
			for (const sub of subs) sub.held ??= [];
		}
		for (const [userId, number] of started) {
			let scope: StreamScope | undefined;
			try {
				const ctx = Context.create(this.service.broker);
				ctx.service = this.service;
				ctx.meta = {};
				scope = await this.scopes.scopeOf(ctx, userId);
			} catch (err) {
				this.logger.warn(
					{ event: "stream-scope-failed", error: err },
					"Refreshing a stream's scope failed; it keeps its former one",
				);
			}
			// A later change's refresh is under way: it applies its newer scope and writes what is held.
			if (this.latestRefresh.get(userId) !== number) continue;
			this.latestRefresh.delete(userId);
			for (const sub of this.byUser.get(userId) ?? []) {
				if (scope) {
					for (const key of sub.scope.keys) unindex(this.byKey, key, sub);
					sub.scope = listening(scope);
					for (const key of sub.scope.keys) indexed(this.byKey, key).add(sub);
				}
				const held = sub.held ?? [];
				sub.held = undefined;
				for (const event of held) if (hears(sub.scope, event)) sub.write(event.frame());
			}
		}
	}

	private sweep(): void {
		const before = Date.now() - this.timings.idleTimeoutMs;
		for (const sub of [...this.byId.values()]) if (sub.lastPulseAt < before) this.end(sub);
	}
}

/** Whom a stream counts against and answers to: its user, the admin key, else (anonymous) its client's address. */
function ownerOf(caller: Caller | undefined, address: string | undefined): string {
	if (caller?.userId) return `user:${caller.userId}`;
	return isAdmin(caller) ? "admin" : `address:${address ?? ""}`;
}

/**
 * Whether a stream may read an event: anyone when it names no readers, else a stream whose reach meets them; never one
 * whose user hides one of its authors, nor a post whose author the user mutes.
 */
function mayRead(scope: ListeningScope, event: Replayable): boolean {
	if (event.readers && !event.readers.some(reader => scope.reach.has(reader))) return false;
	const authors = event.authors ?? [];
	if (authors.some(author => scope.hidden.has(author))) return false;
	return !(event.type === "Post" && authors.length > 0 && scope.muted.has(authors[0]));
}

/** Whether a stream listens for an event and may read it. */
function hears(scope: ListeningScope, event: Replayable): boolean {
	return event.keys.some(key => scope.keys.has(key)) && mayRead(scope, event);
}

function indexed<K>(map: Map<K, Set<Subscription>>, key: K): Set<Subscription> {
	let set = map.get(key);
	if (!set) map.set(key, (set = new Set()));
	return set;
}

function unindex<K>(map: Map<K, Set<Subscription>>, key: K, sub: Subscription): void {
	const set = map.get(key);
	set?.delete(sub);
	if (set?.size === 0) map.delete(key);
}
