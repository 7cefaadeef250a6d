import { ServerEventMessage, ServerEventsClient } from "@servicestack/client";

/** The `eventsource` package (ESM): loaded by Node's own require (process.getBuiltinModule escapes Jest's, which cannot load an ES module). */
type EventSourceClass = new (url: string, init?: { withCredentials?: boolean; fetch?: typeof fetch }) => object;
const nodeRequire = process.getBuiltinModule("node:module").createRequire(__filename);
const { EventSource } = nodeRequire("eventsource") as { EventSource: EventSourceClass };
// ServerEventsClient reads EventSource.CLOSED from the global, as in a browser.
(globalThis as { EventSource?: unknown }).EventSource ??= EventSource;

/** A message a client received: its selector (`cmd.Post`, `chat@cmd.onJoin`), its body, its event id. */
export interface Received {
	selector: string;
	body: Record<string, unknown>;
	eventId: number;
}

/** A ServerEventsClient of @servicestack/client, unmodified, over the eventsource package, sending these headers (a session) with its stream. */
export class TestEvents {
	readonly received: Received[] = [];

	readonly client: ServerEventsClient;

	constructor(url: string, channels: string[], headers: Record<string, string> = {}) {
		const record = (m: ServerEventMessage) => this.received.push({ selector: m.channel ? `${m.channel}@${m.selector}` : m.selector, body: m.body as Record<string, unknown>, eventId: m.eventId });
		this.client = new ServerEventsClient(url, channels, {
			handlers: { onConnect: (_info: unknown, m: ServerEventMessage) => record(m), onJoin: record, onLeave: record, onUpdate: record, onMessage: record, onHeartbeat: (_b: unknown, m: ServerEventMessage) => record(m) },
		});
		this.client.EventSource = class extends EventSource {
			constructor(streamUrl: string, init?: { withCredentials?: boolean }) {
				super(streamUrl, { ...init, fetch: (input, request) => fetch(input, { ...request, headers: { ...(request?.headers as Record<string, string>), ...headers } }) });
			}
		} as unknown as ServerEventsClient["EventSource"];
	}

	/** Starts, and waits for cmd.onConnect. */
	async start(): Promise<this> {
		this.client.start();
		await this.next(m => m.selector === "cmd.onConnect");
		return this;
	}

	/** The first message (received so far or later) that matches, within `timeoutMs`. */
	async next(match: (m: Received) => boolean, timeoutMs = 5_000): Promise<Received> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.received.find(match);
			if (found) return found;
			if (Date.now() > deadline) throw new Error(`No such message within ${timeoutMs} ms; received ${JSON.stringify(this.received.map(m => m.selector))}`);
			await new Promise(resolve => setTimeout(resolve, 10));
		}
	}

	/** The bodies of the messages of one selector. */
	bodies(selector: string): Array<Record<string, unknown>> {
		return this.received.filter(m => m.selector === selector).map(m => m.body);
	}

	stop(): Promise<void> {
		return this.client.stop();
	}
}
