import { ServerResponse } from "node:http";
import { Replayable } from "./replay-buffer";

/** A stream's scope as sets: keys it listens for, its reach (for private events), users it hides and mutes. */
export interface ListeningScope {
	keys: ReadonlySet<string>;
	reach: ReadonlySet<string>;
	hidden: ReadonlySet<string>;
	muted: ReadonlySet<string>;
}

/** What a stream may hold unsent before its client is taken to be gone or too slow. */
const maxUnsentBytes = 1 << 20;

/** ServiceStack's subscription fields, as onConnect, onJoin and /event-subscribers write them (strings). */
export interface SubscriptionMeta {
	userId: string;
	isAuthenticated: "true" | "false";
	displayName: string;
	channels: string;
	profileUrl: string;
	[key: string]: string;
}

/** One open event stream: its response, who it is for, what it listens for and may read. */
export class Subscription {
	lastPulseAt = Date.now();

	closed = false;

	constructor(
		readonly id: string,
		readonly res: ServerResponse,
		/** The signed-in user's id; undefined for an anonymous stream (which gets nothing private) or the admin key. */
		readonly userId: string | undefined,
		readonly address: string | undefined,
		/** Whom it counts against and answers to (see ownerOf): its user, the admin key, else its client's address. */
		readonly owner: string,
		/**
		 * The key of the session or API key it was opened with: when that ends (signed out, expired, taken back, revoked),
		 * so does the stream.
		 */
		readonly credentialKey: string | undefined,
		public channels: string[],
		readonly meta: SubscriptionMeta,
		/** What it listens for, may read and keeps out (see StreamScope). */
		public scope: ListeningScope,
	) {}

	/**
	 * Events heard while its scope is being read again (a follow, a block): written once the new scope says whether it
	 * may read them.
	 */
	held?: Replayable[];

	/**
	 * Writes a frame. A client that reads too slowly to take it is cut off: it reconnects with its Last-Event-ID rather
	 * than grow the gateway's memory.
	 */
	write(frame: string): void {
		if (this.closed) return;
		if (this.res.writableLength > maxUnsentBytes) this.res.destroy();
		else this.res.write(frame);
	}

	/** `id: N` (when given) and `data: <selector> <json>`, as ServiceStack writes a message. */
	static frame(selector: string, json: string, id?: number): string {
		return `${id === undefined ? "" : `id: ${id}\n`}data: ${selector} ${json}\n\n`;
	}
}
