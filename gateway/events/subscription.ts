import { ServerResponse } from "node:http";

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
		public channels: string[],
		readonly meta: SubscriptionMeta,
		/** What it listens for (keys of events) and its reach (who it is, for private events). */
		public keys: ReadonlySet<string>,
		public reach: ReadonlySet<string>,
	) {}

	/** Writes a frame; a stream whose client went away is closed. */
	write(frame: string): void {
		if (this.closed) return;
		this.res.write(frame);
	}

	/** `id: N` (when given) and `data: <selector> <json>`, as ServiceStack writes a message. */
	static frame(selector: string, json: string, id?: number): string {
		return `${id === undefined ? "" : `id: ${id}\n`}data: ${selector} ${json}\n\n`;
	}
}
