import { EventEmitter } from "node:events";
import { ServerResponse } from "node:http";
import { Context, ServiceBroker } from "moleculer";
import { EventStreams, StreamScope } from "../../gateway/events/event-streams";
import { StreamEvent } from "../../shared/streams/stream-event";

/** A response that keeps what is written to it. */
class KeptResponse extends EventEmitter {
	readonly frames: string[] = [];

	readonly writableLength = 0;

	writeHead(): this {
		return this;
	}

	write(frame: string): boolean {
		this.frames.push(frame);
		return true;
	}

	end(): void {}

	destroy(): void {}
}

/**
 * A block answers before the gateways have read the two users' new stream scopes (a call to the graph): what their
 * streams hear meanwhile waits for the new scope, so that nothing the block hides slips through in that window.
 */
describe("a stream whose scope is being read again", () => {
	const broker = new ServiceBroker({ logger: false });
	const service = broker.createService({ name: "streams-under-test" });
	beforeAll(() => broker.start());
	afterAll(() => broker.stop());

	const before: StreamScope = { keys: ["member:club"], reach: ["reader"], hidden: [], muted: [] };
	let scopeNow: () => Promise<StreamScope> = () => Promise.resolve(before);
	let scopeChanged: (userIds: readonly string[]) => void = () => {};
	let nextId = 1;
	const postBy = (author: string): StreamEvent => ({
		id: (nextId += 1),
		type: "Post",
		body: { Id: `${author}-post` },
		keys: ["member:club"],
		authors: [author],
	});

	test("holds what it hears until the new scope is read, then writes only what that scope may read", async () => {
		const streams = new EventStreams(
			service,
			{ scopeOf: () => scopeNow(), onChange: (_broker, changed) => (scopeChanged = changed) },
			10,
		);
		const res = new KeptResponse();
		const ctx = Context.create(broker);
		ctx.meta = { user: { userId: "reader", roles: [] } };
		await streams.open({ ctx, res: res as unknown as ServerResponse, baseUrl: "http://plaza", channels: ["home"] });
		const posts = () =>
			res.frames.filter(frame => frame.includes("cmd.Post")).map(frame => /"Id":"([^"]+)"/.exec(frame)?.[1]);

		streams.deliver(postBy("blocked"));
		expect(posts()).toEqual(["blocked-post"]);

		let read: (scope: StreamScope) => void = () => {};
		scopeNow = () => new Promise(resolve => (read = resolve));
		scopeChanged(["reader"]);
		streams.deliver(postBy("blocked"));
		streams.deliver(postBy("friend"));
		expect(posts()).toEqual(["blocked-post"]);

		read({ ...before, hidden: ["blocked"] });
		await new Promise(resolve => setImmediate(resolve));
		expect(posts()).toEqual(["blocked-post", "friend-post"]);
		streams.deliver(postBy("blocked"));
		streams.deliver(postBy("friend"));
		expect(posts()).toEqual(["blocked-post", "friend-post", "friend-post"]);
		streams.close();
	});
});
