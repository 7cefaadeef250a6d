import { randomBytes, randomUUID } from "node:crypto";
import { connect, NatsConnection } from "nats";
import { ActionHandler, ActionSchema, BrokerOptions, Context, Middleware, ServiceBroker } from "moleculer";
import { natsServerBinary, TestNats } from "./support/nats";
import { startPlaza, TestPlaza, plazaForSuite } from "./support/plaza";
import { defaultConfig } from "../shared/config";
import { brokerOptions } from "../shared/broker-options";
import { sealedTransit } from "../shared/bus/sealed-transit";
import { packetSeal } from "../shared/bus/seal";
import { Caller } from "../shared/caller";

/**
 * Issue 13, PRODUCT.md §5: the bus is a trust boundary. NATS wants credentials; every packet is
 * sealed with CLUSTER_SECRET, so a process with the NATS credentials but not the secret can
 * neither read a call nor make one, nor replay one it saw; internal actions answer only the
 * services they serve.
 */
const admin: Caller = {
	userId: "0f8fad5bd9cb469fa16570867728950e",
	userName: "rogue",
	displayName: "Rogue",
	roles: ["Admin"],
};
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
/**
 * How long a new broker may take to discover Plaza's node over NATS: seconds when idle, far more on a loaded machine.
 */
const discoveryMs = 45_000;
const secret = () => randomBytes(32).toString("hex");

describe("the seal of a packet", () => {
	const clusterSecret = secret();
	let now = 1_800_000_000_000;
	const clock = () => now;
	const packet = Buffer.from(
		JSON.stringify({ ver: "5", sender: "gateway-1", action: "sessions.open", meta: { user: admin } }),
	);

	test("opens once, at the node and for the packet type it was sealed for; a replay is dropped", () => {
		const sender = packetSeal(clusterSecret, { now: clock });
		const receiver = packetSeal(clusterSecret, { now: clock });
		const sealed = sender.seal("REQ", "users-1", packet);
		expect(sealed.includes(Buffer.from("sessions.open"))).toBe(false);
		expect(receiver.open("REQ", "users-2", sealed)).toEqual({ ok: false, reason: "unauthentic" });
		expect(receiver.open("EVENT", "users-1", sealed)).toEqual({ ok: false, reason: "unauthentic" });
		expect(receiver.open("REQ", "users-1", sealed)).toEqual({ ok: true, data: packet });
		expect(receiver.open("REQ", "users-1", sealed)).toEqual({ ok: false, reason: "replayed" });
		// Broadcasts (no target) open at every node, once each.
		const broadcast = sender.seal("INFO", undefined, packet);
		expect(receiver.open("INFO", "users-1", broadcast)).toMatchObject({ ok: true });
		expect(packetSeal(clusterSecret, { now: clock }).open("INFO", "posts-1", broadcast)).toMatchObject({ ok: true });
	});

	test("no two packets of a sender share a key and an IV, even in the same millisecond; each opens", () => {
		const sender = packetSeal(clusterSecret, { now: clock });
		const receiver = packetSeal(clusterSecret, { now: clock });
		const sealed = Array.from({ length: 2_000 }, () => sender.seal("EVENT", undefined, packet));
		// Key salt (bytes 2-17) and IV (bytes 26-37): the pair GCM must never see twice.
		expect(new Set(sealed.map(p => p.toString("hex", 2, 18) + p.toString("hex", 26, 38))).size).toBe(2_000);
		for (const p of sealed) expect(receiver.open("EVENT", "posts-1", p)).toMatchObject({ ok: true });
		// Another sender (another process) has another key.
		expect(packetSeal(clusterSecret, { now: clock }).seal("EVENT", undefined, packet).toString("hex", 2, 18)).not.toBe(
			sealed[0].toString("hex", 2, 18),
		);
	});

	test("a packet altered anywhere, sealed under another secret, or plain, is dropped", () => {
		const sealed = packetSeal(clusterSecret, { now: clock }).seal("REQ", "users-1", packet);
		for (let at = 0; at < sealed.length; at += 7) {
			const altered = Buffer.from(sealed);
			altered[at] ^= 0x01;
			expect(packetSeal(clusterSecret, { now: clock }).open("REQ", "users-1", altered).ok).toBe(false);
		}
		expect(packetSeal(secret(), { now: clock }).open("REQ", "users-1", sealed)).toEqual({
			ok: false,
			reason: "unauthentic",
		});
		expect(packetSeal(clusterSecret, { now: clock }).open("REQ", "users-1", packet).ok).toBe(false);
	});

	test("too old (past the 30 s window) or from too far ahead is dropped; replays stay dropped while the window lasts", () => {
		const sender = packetSeal(clusterSecret, { now: clock });
		const receiver = packetSeal(clusterSecret, { now: clock });
		const sealed = sender.seal("REQ", "users-1", packet);
		now += 20_000;
		expect(receiver.open("REQ", "users-1", sealed).ok).toBe(true);
		now += 9_000;
		expect(receiver.open("REQ", "users-1", sealed)).toEqual({ ok: false, reason: "replayed" });
		now += 2_000;
		expect(receiver.open("REQ", "users-1", sealed)).toEqual({ ok: false, reason: "stale" });
		const ahead = packetSeal(clusterSecret, { now: () => now + 60_000 }).seal("REQ", "users-1", packet);
		expect(receiver.open("REQ", "users-1", ahead)).toEqual({ ok: false, reason: "stale" });
		const skewed = packetSeal(clusterSecret, { now: () => now + 3_000 }).seal("REQ", "users-1", packet);
		expect(receiver.open("REQ", "users-1", skewed).ok).toBe(true);
	});

	test("the replay memory is bounded: when full it refuses, it never lets a packet through unchecked", () => {
		const sender = packetSeal(clusterSecret, { now: clock });
		const receiver = packetSeal(clusterSecret, { now: clock, maxRemembered: 3 });
		const results = Array.from({ length: 4 }, () =>
			receiver.open("REQ", "users-1", sender.seal("REQ", "users-1", packet)),
		);
		expect(results.map(r => (r.ok ? "ok" : r.reason))).toEqual(["ok", "ok", "ok", "overloaded"]);
		now += 36_000;
		expect(receiver.open("REQ", "users-1", sender.seal("REQ", "users-1", packet)).ok).toBe(true);
	});
});

describe("internal actions refuse callers they do not serve (one process)", () => {
	const { plaza } = plazaForSuite({ services: ["users"] });

	test("sessions.open called from outside any service, or from a service it does not serve, opens nothing (403)", async () => {
		const member = await plaza.signUp();
		const sessions = await plaza.count("sessions", "sessions");
		await expect(
			plaza.broker.call("sessions.open", { user: admin, persistent: false }, { meta: { user: admin } }),
		).rejects.toMatchObject({ code: 403 });
		plaza.broker.createService({
			name: "intruder",
			actions: {
				openAdminSession: (ctx: Context) => ctx.call("sessions.open", { user: admin, persistent: false }),
				verify: (ctx: Context<{ UserName: string; Password: string }>) =>
					ctx.call("users.verifyCredentials", ctx.params),
			},
		});
		await plaza.broker.waitForServices("intruder");
		await expect(plaza.broker.call("intruder.openAdminSession")).rejects.toMatchObject({ code: 403 });
		await expect(
			plaza.broker.call("intruder.verify", { UserName: member.userName, Password: member.password }),
		).rejects.toMatchObject({ code: 403 });
		expect(await plaza.count("sessions", "sessions")).toBe(sessions);
		// The services it serves still get through: a sign-in (sessions calls users.verifyCredentials, then opens a
		// session).
		expect(
			(await plaza.http("POST", "/auth/credentials", { UserName: member.userName, Password: member.password })).status,
		).toBe(200);
		expect(await plaza.count("sessions", "sessions")).toBe(sessions + 1);
	});
});

describe("internal actions answer the services they serve (one process)", () => {
	/** The internal actions that ran, seen inside the callers check (a refused call never gets here). */
	const served = new Set<string>();
	const spy: Middleware = {
		localAction(handler: ActionHandler, action: ActionSchema) {
			if (action.visibility !== "public") return handler;
			return function servedCall(this: unknown, ctx: Context) {
				served.add(`${action.name} by ${ctx.caller}`);
				return handler.call(this as never, ctx) as unknown;
			};
		},
	};
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza({}, [spy]);
	});
	afterAll(() => plaza.stop());

	test("a flow through every kind of call between services: each answers, none refused", async () => {
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]).toString("base64");
		const host = await plaza.signUp();
		const basic = `Basic ${Buffer.from(`${host.userName}:${host.password}`).toString("base64")}`;
		const ok = async (reply: Promise<{ status: number; text: string; body: unknown }>) => {
			const { status, text, body } = await reply;
			expect({ status, text }).toEqual({ status: 200, text: expect.any(String) });
			return body as Record<string, string>;
		};
		await ok(plaza.http("GET", `/Users/${host.userId}`, undefined, { Authorization: basic }));
		const venue = await ok(host.http("POST", "/Venues", { OwnerId: host.userId, Name: "Hall" }));
		const network = await ok(host.http("POST", "/Networks", { OwnerId: host.userId, Name: "Crew", IsOpen: true }));
		await ok(
			host.http("PUT", `/Users/${host.userId}`, {
				Id: host.userId,
				FirstName: "Host",
				LastName: "Person",
				DefaultVenueId: venue.Id,
			}),
		);
		const post = await ok(
			host.http("POST", "/Posts", {
				AuthorId: host.userId,
				Content: "to the crew",
				IsPrivate: true,
				RecipientIds: [network.Id],
				ContextId: network.Id,
			}),
		);
		await ok(host.http("GET", `/Posts/${post.Id}`));
		await ok(host.http("GET", "/Search/Posts?TagNames=none"));
		const picture = await ok(
			host.http("POST", "/Pictures", { OwnerId: host.userId, PostId: post.Id, ContentType: "image/png", Data: png }),
		);
		await ok(host.http("GET", `/Pictures/${picture.Id}`));
		await ok(host.http("GET", `/Users/${host.userId}/Pictures`));
		const reservation = await ok(
			host.http("POST", "/Reservations", {
				Email: `guest${Date.now()}@example.org`,
				FirstName: "Gue",
				LastName: "St",
				VenueId: venue.Id,
				NetworkId: network.Id,
			}),
		);
		await ok(
			plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, {
				UserName: `guest${Date.now()}`,
				Password: "welcome aboard, guest",
			}),
		);
		await ok(plaza.http("POST", "/auth/credentials", { UserName: host.userName, Password: host.password }));
		expect([...served].sort()).toEqual(
			expect.arrayContaining([
				"users.verifyCredentials by gateway",
				"users.verifyCredentials by sessions",
				"sessions.resolve by gateway",
				"sessions.open by users",
				"sessions.open by reservations",
				"users.profiles by posts",
				"users.createAccount by reservations",
				"graph.embedFor by users",
				"graph.audienceOf by posts",
				"graph.joinNetwork by reservations",
				"graph.networksByIds by posts",
				"graph.networksByIds by reservations",
				"venues.byIds by users",
				"venues.byIds by reservations",
				"venues.join by reservations",
				"posts.checkAuthor by media",
				"posts.checkVisible by media",
				"posts.visibleAmong by media",
			]),
		);
	});
});

const describeWithNats = natsServerBinary ? describe : describe.skip;

describeWithNats("a Plaza node on NATS with credentials and a CLUSTER_SECRET", () => {
	const clusterSecret = secret();
	const plazaNode = `plaza-${randomUUID().slice(0, 8)}`;
	let nats: TestNats;
	let plaza: TestPlaza;
	const brokers: ServiceBroker[] = [];
	const clients: NatsConnection[] = [];

	beforeAll(async () => {
		nats = await TestNats.start();
		plaza = await startPlaza({
			transporter: nats.url,
			cluster: { ...defaultConfig().cluster, secret: clusterSecret, nodeId: plazaNode },
		});
	}, 30_000);
	afterAll(async () => {
		await Promise.all(brokers.map(b => b.stop()));
		await Promise.all(clients.map(c => c.close()));
		await plaza?.stop();
		await nats?.stop();
	});

	/** A raw NATS client with the server's credentials: what any process given TRANSPORTER has. */
	const natsClient = async () => {
		const client = await connect({ servers: `127.0.0.1:${nats.port}`, user: nats.user, pass: nats.password });
		clients.push(client);
		return client;
	};
	/** A Moleculer broker of the same namespace on the same NATS, with extra middlewares (a seal, or none). */
	const startBroker = async (nodeID: string, middlewares: ReturnType<typeof sealedTransit>[] = []) => {
		const broker = new ServiceBroker({
			namespace: "plaza",
			nodeID,
			transporter: nats.url as BrokerOptions["transporter"],
			logger: false,
			middlewares,
		});
		brokers.push(broker);
		await broker.start();
		return broker;
	};
	const counts = async () => ({
		users: await plaza.count("users", "users"),
		sessions: await plaza.count("sessions", "sessions"),
		posts: await plaza.count("posts", "posts"),
	});
	const createUser = (userName: string) => ({
		FirstName: "Rogue",
		LastName: "Made",
		UserName: userName,
		Password: "rogue made me",
	});

	test("(a) a client without the NATS credentials cannot connect", async () => {
		await expect(connect({ servers: `127.0.0.1:${nats.port}`, reconnect: false, timeout: 2_000 })).rejects.toThrow(
			/Authorization/i,
		);
		await expect(
			connect({ servers: `127.0.0.1:${nats.port}`, user: nats.user, pass: "wrong", reconnect: false, timeout: 2_000 }),
		).rejects.toThrow(/Authorization/i);
	});

	test("(b) a broker with the NATS credentials but without (or with a wrong) CLUSTER_SECRET can neither see nor call the services", async () => {
		const member = await plaza.signUp();
		const before = await counts();
		const rogues = [
			await startBroker("rogue-plain"),
			await startBroker("rogue-wrong-secret", [sealedTransit(secret())]),
		];
		// Long enough for discovery (a DISCOVER answered by INFO) and a heartbeat.
		await sleep(2_500);
		for (const rogue of rogues) {
			expect(rogue.registry.getServiceList({ onlyAvailable: true }).map((s: { name: string }) => s.name)).not.toContain(
				"sessions",
			);
			const meta = { user: admin };
			await expect(rogue.call("sessions.open", { user: admin, persistent: false }, { meta })).rejects.toThrow();
			await expect(
				rogue.call("users.create", createUser(`rogue_${rogue.nodeID.replace(/-/g, "_")}`), { meta }),
			).rejects.toThrow();
			await expect(
				rogue.call("posts.create", { AuthorId: member.userId, Content: "posted by a rogue" }, { meta }),
			).rejects.toThrow();
		}
		expect(await counts()).toEqual(before);
	}, 20_000);

	test("(c) a hand-made request packet (plain JSON, meta.user an admin) published on the users node's subject changes nothing", async () => {
		const client = await natsClient();
		const before = await counts();
		const answers = client.subscribe("MOL-plaza.RES.rogue-raw");
		const request = (action: string, params: unknown) =>
			Buffer.from(
				JSON.stringify({
					ver: "5",
					sender: "rogue-raw",
					id: randomUUID(),
					action,
					params,
					meta: { user: admin },
					headers: {},
					timeout: 5000,
					level: 1,
					tracing: false,
					parentID: null,
					requestID: randomUUID(),
					caller: "gateway",
					stream: false,
				}),
			);
		client.publish(`MOL-plaza.REQ.${plazaNode}`, request("users.create", createUser("rogue_raw_packet")));
		client.publish(`MOL-plaza.REQ.${plazaNode}`, request("sessions.open", { user: admin, persistent: false }));
		await client.flush();
		await sleep(1_000);
		expect(answers.getProcessed()).toBe(0);
		expect(await counts()).toEqual(before);
	});

	test(
		"(d) a member's sealed request, captured on the bus and published again, is dropped",
		async () => {
			const member = await startBroker("member-reservations", [sealedTransit(clusterSecret)]);
			// A service that sessions.open serves (reservations opens a session after a conversion).
			member.createService({
				name: "reservations",
				actions: {
					openSessionFor: (ctx: Context<{ user: Caller }>) =>
						ctx.call("sessions.open", { user: ctx.params.user, persistent: false }),
				},
			});
			await member.waitForServices("sessions", discoveryMs);
			const client = await natsClient();
			const captured: Uint8Array[] = [];
			const subscription = client.subscribe(`MOL-plaza.REQ.${plazaNode}`, {
				callback: (_err, msg) => captured.push(msg.data),
			});
			await client.flush();
			const user = (await plaza.signUp()).userId;
			const before = await plaza.count("sessions", "sessions");
			const opened = await member.call<{ SessionId: string }, { user: Caller }>("reservations.openSessionFor", {
				user: { userId: user, roles: [] },
			});
			expect(opened.SessionId).toEqual(expect.any(String));
			expect(await plaza.count("sessions", "sessions")).toBe(before + 1);
			await client.flush();
			subscription.unsubscribe();
			expect(captured.length).toBeGreaterThan(0);
			expect(captured.some(data => Buffer.from(data).includes(Buffer.from("sessions.open")))).toBe(false);
			for (const data of captured) client.publish(`MOL-plaza.REQ.${plazaNode}`, data);
			await client.flush();
			await sleep(1_000);
			expect(await plaza.count("sessions", "sessions")).toBe(before + 1);
		},
		discoveryMs + 20_000,
	);

	test(
		"(e) a member with the secret, calling an internal action from a service it does not serve, is refused",
		async () => {
			const member = await startBroker("member-intruder", [sealedTransit(clusterSecret)]);
			member.createService({
				name: "venues",
				actions: { openAdminSession: (ctx: Context) => ctx.call("sessions.open", { user: admin, persistent: false }) },
			});
			await member.waitForServices("sessions", discoveryMs);
			const before = await plaza.count("sessions", "sessions");
			await expect(member.call("venues.openAdminSession")).rejects.toMatchObject({ code: 403 });
			await expect(member.call("sessions.open", { user: admin, persistent: false })).rejects.toMatchObject({
				code: 403,
			});
			expect(await plaza.count("sessions", "sessions")).toBe(before);
		},
		discoveryMs + 20_000,
	);
});

test("a process with a transporter but no CLUSTER_SECRET refuses to start", () => {
	expect(() => brokerOptions(defaultConfig({ transporter: "nats://127.0.0.1:4222" }), [])).toThrow(/CLUSTER_SECRET/);
});
