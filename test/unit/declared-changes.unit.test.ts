import { Context, ServiceBroker } from "moleculer";
import { operationsMiddleware } from "../../shared/operations.middleware";
import { changed } from "../../shared/changes/changes";
import { cachesService } from "../../shared/cache/caches.service";
import { cacheOf } from "../../shared/cache/node-caches";
import { domainGenerations } from "../../shared/cache/domain-changes";
import { profileCache } from "../../shared/profiles";
import { Caller } from "../../shared/caller";

/**
 * Declared changes (shared/changes/changes.ts): a catalogue write that states nothing fails, and what a write states
 * reaches the other nodes, each cache entry and domain generation it names, before the write answers.
 */
const ann = "a".repeat(32);
const as = (userId: string) => ({ meta: { user: { userId, roles: [] } satisfies Caller } });
const device = { UserId: ann, DeviceToken: "token-1" };

describe("a write states what it changed", () => {
	const writer = new ServiceBroker({
		nodeID: "writer",
		logger: false,
		transporter: "Fake",
		middlewares: [operationsMiddleware],
	});
	const reader = new ServiceBroker({ nodeID: "reader", logger: false, transporter: "Fake" });
	let declares = false;
	// CreateUserDevice's action, answered by a stand-in that declares its change or not.
	writer.createService({
		name: "devices",
		actions: {
			async register(ctx: Context<typeof device>) {
				if (declares) await changed(ctx, { domain: "users", drops: [{ cache: profileCache, keys: [ann] }] });
				return { Id: "d".repeat(32), ...ctx.params, CreatedTime: 0 };
			},
		},
	});
	reader.createService(cachesService());
	beforeAll(() => Promise.all([writer.start(), reader.start()]));
	afterAll(() => Promise.all([writer.stop(), reader.stop()]));

	test("a catalogue write that answers without stating a change is a 500 in tests", async () => {
		declares = false;
		await expect(writer.call("devices.register", device, as(ann))).rejects.toMatchObject({
			code: 500,
			type: "UndeclaredChanges",
		});
	});

	test("what it states is dropped on the other nodes, and their domain generation moves, before it answers", async () => {
		declares = true;
		await writer.waitForServices(["caches"]); // broadcasts go to the nodes the writer knows
		const held = cacheOf(reader, profileCache);
		await held.through(ann, async () => ({ Id: ann, FirstName: "Ann" }));
		expect(held.has(ann)).toBe(true);
		const before = domainGenerations(reader).of(["users"]);
		const unrelated = domainGenerations(reader).of(["venues"]);
		await writer.call("devices.register", device, as(ann));
		// The Fake transporter delivers in the same process, so the news has arrived once the next turn has run.
		await new Promise(resolve => setImmediate(resolve));
		expect(held.has(ann)).toBe(false);
		expect(domainGenerations(reader).of(["users"])).not.toBe(before);
		expect(domainGenerations(reader).of(["venues"])).toBe(unrelated);
	});
});
