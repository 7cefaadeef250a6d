import { ServerEventMessage, ServerEventsClient } from "@servicestack/client";

/**
 * The `eventsource` package (ESM): loaded by Node's own require (process.getBuiltinModule escapes Jest's, which cannot
 * load an ES module).
 */
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

/**
 * A ServerEventsClient of @servicestack/client, unmodified, over the eventsource package, sending these headers (a
 * session) with its stream.
 */
export class TestEvents {
	readonly received: Received[] = [];

	readonly client: ServerEventsClient;

	constructor(url: string, channels: string[], headers: Record<string, string> = {}) {
		const record = (m: ServerEventMessage) =>
			this.received.push({
				selector: m.channel ? `${m.channel}@${m.selector}` : m.selector,
				body: m.body as Record<string, unknown>,
				eventId: m.eventId,
			});
		this.client = new ServerEventsClient(url, channels, {
			handlers: {
				onConnect: (_info: unknown, m: ServerEventMessage) => record(m),
				onJoin: record,
				onLeave: record,
				onUpdate: record,
				onMessage: record,
				onHeartbeat: (_b: unknown, m: ServerEventMessage) => record(m),
			},
		});
		this.client.EventSource = class extends EventSource {
			constructor(streamUrl: string, init?: { withCredentials?: boolean }) {
				super(streamUrl, {
					...init,
					fetch: (input, request) =>
						fetch(input, { ...request, headers: { ...(request?.headers as Record<string, string>), ...headers } }),
				});
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
			if (Date.now() > deadline)
				throw new Error(
					`No such message within ${timeoutMs} ms; received ${JSON.stringify(this.received.map(m => m.selector))}`,
				);
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

/** A stream read as plain text, with no client to reconnect it: what it received, and whether the server ended it. */
export class RawStream {
	text = "";

	ended = false;

	private constructor(
		private readonly url: string,
		private readonly abort: AbortController,
	) {}

	/** Opens a stream with these headers (none: anonymous) and waits for its cmd.onConnect; throws when it is refused. */
	static async open(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
		const abort = new AbortController();
		const res = await fetch(`${url}/event-stream?channels=home`, { headers, signal: abort.signal });
		if (res.status !== 200 || !res.body) throw new Error(`The stream was refused: ${res.status} ${await res.text()}`);
		const stream = new RawStream(url, abort);
		// Read from now on; it never fails (an abort only ends it).
		stream.read(res.body).catch(() => undefined);
		await stream.until(() => stream.text.includes("cmd.onConnect"));
		return stream;
	}

	/** Its subscription's id, from cmd.onConnect. */
	get id(): string {
		return String((JSON.parse(/data: cmd\.onConnect (.*)/.exec(this.text)?.[1] ?? "{}") as { id?: string }).id);
	}

	/** Waits until `done` holds, within `timeoutMs`. */
	async until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!done()) {
			if (Date.now() > deadline)
				throw new Error(
					`Not so within ${timeoutMs} ms; the stream ${this.ended ? "ended" : "is open"} and received ${JSON.stringify(this.text)}`,
				);
			await new Promise(resolve => setTimeout(resolve, 10));
		}
	}

	/** Unregisters it (the gateway ends it at once) and drops the connection. */
	async close(): Promise<void> {
		if (!this.ended) await (await fetch(`${this.url}/event-unregister?id=${this.id}`, { method: "POST" })).text();
		this.abort.abort();
	}

	private async read(body: ReadableStream<Uint8Array>): Promise<void> {
		const decoder = new TextDecoder();
		try {
			for await (const chunk of body) this.text += decoder.decode(chunk, { stream: true });
		} catch {
			// Aborted by close(): it ended all the same.
		}
		this.ended = true;
	}
}
