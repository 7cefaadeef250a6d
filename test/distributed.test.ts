import { ADMIN_KEY, WireRecord } from "./support/plaza";
import { freePort, RunningProcess, startMain, waitForHealthy } from "./support/process";
import { postgresTestsOn, testDatabase } from "./support/postgres";
import { natsServerBinary, TestNats } from "./support/nats";
import { Outcome, runLoad, statusCounts } from "./support/load";

/**
 * Issue 8's claims, shown with the built entry point: every service in a process of its own
 * (two posts nodes), joined over a real nats-server, sharing one PostgreSQL database.
 */
const describeCluster = postgresTestsOn && natsServerBinary ? describe : describe.skip;

interface Node {
	name: string;
	services: string;
	probePort: number;
	process: RunningProcess;
}

interface LogLine {
	event?: string;
	action?: string;
	requestID?: string;
	path?: string;
	status?: number;
}

const guid = "0f8fad5bd9cb469fa16570867728950e";
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** The JSON log lines a process has printed so far. */
function logLines(node: Node): LogLine[] {
	return node.process
		.output()
		.split("\n")
		.filter(line => line.startsWith("{"))
		.map(line => {
			try {
				return JSON.parse(line) as LogLine;
			} catch {
				return {};
			}
		});
}

describeCluster("the distributed mode: a process per service over NATS, one PostgreSQL store", () => {
	const database = testDatabase();
	let nats: TestNats;
	let url: string;
	const nodes = new Map<string, Node>();
	let env: Record<string, string>;

	const startNode = async (name: string, services: string, extra: Record<string, string> = {}) => {
		const probePort = nodes.get(name)?.probePort ?? (await freePort());
		const process = startMain({ ...env, NODE_ID: name, SERVICES: services, PROBE_PORT: String(probePort), ...extra });
		const node = { name, services, probePort, process };
		nodes.set(name, node);
		await waitForHealthy(`http://127.0.0.1:${probePort}/ready`, 20_000, process);
		return node;
	};
	const node = (name: string) => nodes.get(name)!;

	const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) => {
		const res = await fetch(url + path, {
			method,
			signal,
			headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		return { status: res.status, headers: res.headers, body: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as WireRecord & WireRecord[] };
	};
	const admin = { Authorization: `Bearer ${ADMIN_KEY}` };

	/** Until every domain answers through the gateway (not 503): the nodes have found one another. */
	const waitForCluster = async () => {
		const deadline = Date.now() + 30_000;
		const probes: Array<[string, number]> = [
			["/Users", 200],
			[`/Networks/${guid}`, 404],
			["/Search/Posts", 200],
			[`/Venues/${guid}`, 404],
			["/Systems", 200],
		];
		for (;;) {
			const statuses = await Promise.all(probes.map(([path]) => call("GET", path, undefined, admin).then(r => r.status)));
			if (statuses.every((s, i) => s === probes[i][1])) return;
			if (Date.now() > deadline) throw new Error(`The cluster did not come together: ${JSON.stringify(statuses)}`);
			await sleep(200);
		}
	};

	/** Until a posts node has served a call: the gateway routes to it. */
	const waitForServing = async (name: string, author: { token: string }) => {
		const deadline = Date.now() + 20_000;
		const before = logLines(node(name)).filter(l => l.event === "call").length;
		while (logLines(node(name)).filter(l => l.event === "call").length === before) {
			if (Date.now() > deadline) throw new Error(`${name} serves nothing`);
			await call("GET", "/Search/Posts?TagNames=load", undefined, { "X-ss-id": author.token });
		}
	};

	const signUp = async (name: string) => {
		const reply = await call("POST", "/register", { UserName: `${name}${Date.now()}${Math.floor(Math.random() * 1e6)}`, Password: "distributed systems", FirstName: name, LastName: "Node", AutoLogin: true });
		expect(reply.status).toBe(200);
		return { userId: String(reply.body.UserId), token: String(reply.body.SessionId) };
	};

	/** Half reads (tag search, find a post written before), half writes (new posts): the steady load of the failure tests. */
	const mixedLoad = (author: { userId: string; token: string }, known: string[]) => (i: number) => {
		const headers = { "X-ss-id": author.token };
		if (i % 2 === 0) {
			return {
				kind: "write" as const,
				send: async (signal: AbortSignal) => {
					const reply = await call("POST", "/Posts", { AuthorId: author.userId, Content: `load ${i}`, Tags: ["load"] }, headers, signal);
					return { status: reply.status, id: reply.status === 200 ? String(reply.body.Id) : undefined };
				},
			};
		}
		return {
			kind: "read" as const,
			send: async (signal: AbortSignal) => {
				const reply = i % 4 === 1 ? await call("GET", "/Search/Posts?TagNames=load&Limit=5", undefined, headers, signal) : await call("GET", `/Posts/${known[i % known.length]}`, undefined, headers, signal);
				return { status: reply.status };
			},
		};
	};

	/** Every write that got a 200 can be read back. */
	const expectAcknowledgedWritesKept = async (outcomes: Outcome[], reader: { token: string }) => {
		const written = outcomes.filter(o => o.kind === "write" && o.status === 200).map(o => o.id!);
		expect(written.length).toBeGreaterThan(0);
		const missing: string[] = [];
		// A few at a time: this checks the store, not how the cluster takes a burst.
		for (let i = 0; i < written.length; i += 8) {
			const batch = written.slice(i, i + 8);
			const statuses = await Promise.all(batch.map(id => call("GET", `/Posts/${id}`, undefined, { "X-ss-id": reader.token }).then(r => r.status)));
			batch.forEach((id, j) => statuses[j] !== 200 && missing.push(`${id}: ${statuses[j]}`));
		}
		expect(missing).toEqual([]);
	};

	let author: { userId: string; token: string };
	const known: string[] = [];

	beforeAll(async () => {
		await database.create();
		nats = await TestNats.start();
		const port = await freePort();
		url = `http://127.0.0.1:${port}`;
		env = {
			TRANSPORTER: nats.url,
			DATABASE_URL: database.url,
			MONGO_URI: "",
			ADMIN_API_KEY: ADMIN_KEY,
			LOG_FORMAT: "json",
			LOG_LEVEL: "info",
			HEARTBEAT_INTERVAL_SECONDS: "1",
			HEARTBEAT_TIMEOUT_SECONDS: "3",
			REQUEST_TIMEOUT_MS: "3000",
			RATE_LIMIT_PER_MINUTE: "1000000",
			PORT: String(port),
		};
		await Promise.all([
			startNode("users-1", "users"),
			startNode("graph-1", "graph"),
			startNode("posts-a", "posts"),
			startNode("posts-b", "posts"),
			startNode("venues-1", "venues"),
			startNode("systems-1", "systems"),
			startNode("gateway-1", "gateway"),
		]);
		await waitForCluster();
		author = await signUp("author");
		for (let i = 0; i < 10; i++) known.push(String((await call("POST", "/Posts", { AuthorId: author.userId, Content: `seed ${i}`, Tags: ["load"] }, { "X-ss-id": author.token })).body.Id));
	}, 90_000);

	afterAll(async () => {
		for (const n of nodes.values()) if (n.process.child.exitCode === null) n.process.child.kill("SIGTERM");
		await Promise.all([...nodes.values()].map(n => n.process.exited));
		await nats?.stop();
		await database.drop();
	}, 60_000);

	test("the whole API flow: register, connect, post, comment, search, each service in its own process", async () => {
		const [ann, bob] = [await signUp("ann"), await signUp("bob")];
		const connected = await call("POST", "/Connections", { OwnerId: ann.userId, ConnectToId: bob.userId }, { "X-ss-id": ann.token });
		expect(connected.status).toBe(200);
		const post = await call("POST", "/Posts", { AuthorId: ann.userId, Content: "over NATS", IsPrivate: true, RecipientIds: [bob.userId], Tags: ["cluster"] }, { "X-ss-id": ann.token });
		expect(post.status).toBe(200);
		const comment = await call("POST", `/Posts/${post.body.Id}/Comments`, { AuthorId: bob.userId, Content: "received" }, { "X-ss-id": bob.token });
		expect(comment.status).toBe(200);
		const found = await call("GET", "/Search/Posts?TagNames=cluster", undefined, { "X-ss-id": bob.token });
		expect(found.body.map(p => p.Id)).toEqual([post.body.Id]);
		expect((found.body[0].Comments as WireRecord[]).map(c => c.Content)).toEqual(["received"]);
		const user = await call("GET", `/Users/${bob.userId}`, undefined, { "X-ss-id": bob.token });
		expect((user.body.Connections as WireRecord[]).map(c => c.UserId)).toEqual([ann.userId]);
		const stranger = await signUp("eve");
		expect((await call("GET", `/Posts/${post.body.Id}`, undefined, { "X-ss-id": stranger.token })).status).toBe(404);

		// Both posts nodes take their share of the calls.
		for (let i = 0; i < 20; i++) await call("GET", "/Search/Posts?TagNames=cluster", undefined, { "X-ss-id": bob.token });
		for (const name of ["posts-a", "posts-b"]) expect(logLines(node(name)).filter(l => l.event === "call" && l.action?.startsWith("posts.")).length).toBeGreaterThan(0);
	}, 60_000);

	test("a request id follows the call: in the gateway's log and in the logs of the services that served it", async () => {
		const requestID = `trace-${Date.now()}`;
		const reply = await call("GET", `/Users/${author.userId}`, undefined, { "X-ss-id": author.token, "X-Request-ID": requestID });
		expect(reply.status).toBe(200);
		expect(reply.headers.get("x-request-id")).toBe(requestID);
		await sleep(300);
		expect(logLines(node("gateway-1")).find(l => l.requestID === requestID && l.event === "request")).toMatchObject({ path: `/Users/${author.userId}`, status: 200 });
		expect(logLines(node("users-1")).filter(l => l.requestID === requestID).map(l => l.action)).toEqual(expect.arrayContaining(["users.find", "sessions.resolve"]));
		expect(logLines(node("graph-1")).filter(l => l.requestID === requestID).map(l => l.action)).toContain("graph.embedFor");
	});

	test("/metrics: per-operation counters and latencies at the gateway, per-action ones on every node", async () => {
		const gateway = await (await fetch(`http://127.0.0.1:${node("gateway-1").probePort}/metrics`)).text();
		expect(gateway).toMatch(/plaza_operation_requests_total\{[^}]*operation="FindUser"[^}]*status="200"[^}]*\} \d+/);
		expect(gateway).toMatch(/plaza_operation_duration_seconds_bucket\{[^}]*operation="CreatePost"/);
		const viaGateway = await fetch(`${url}/metrics`, { headers: admin });
		expect(viaGateway.status).toBe(200);
		expect((await fetch(`${url}/metrics`, { headers: { "X-ss-id": author.token } })).status).toBe(403);
		const posts = await (await fetch(`http://127.0.0.1:${node("posts-a").probePort}/metrics`)).text();
		expect(posts).toMatch(/moleculer_request_total\{[^}]*action="posts\.\w+"/);
	});

	test("a graceful stop (SIGTERM) of a posts node under load drops no request", async () => {
		const stopping = node("posts-b");
		const load = runLoad(6, 8, mixedLoad(author, known));
		await sleep(1500);
		stopping.process.child.kill("SIGTERM");
		const outcomes = await load;
		expect(await stopping.process.exited).toBe(0);
		expect(statusCounts(outcomes)).toEqual({ "read 200": expect.any(Number), "write 200": expect.any(Number) });
		await expectAcknowledgedWritesKept(outcomes, author);
		await startNode("posts-b", "posts");
		await waitForServing("posts-b", author);
	}, 60_000);

	test("a posts node killed (SIGKILL) under load: reads go on, failures are a clear 503, no acknowledged write is lost, and the load recovers", async () => {
		const killed = node("posts-a");
		const load = runLoad(9, 8, mixedLoad(author, known));
		await sleep(2000);
		killed.process.child.kill("SIGKILL");
		const killedAt = 2000;
		const outcomes = await load;
		expect(Object.keys(statusCounts(outcomes)).filter(k => !/ (200|503)$/.test(k))).toEqual([]);
		const readsAfter = outcomes.filter(o => o.kind === "read" && o.at > killedAt);
		expect(readsAfter.filter(o => o.status === 200).length).toBeGreaterThan(readsAfter.length * 0.8);
		// Once the node is known to be gone (3 s of silence), everything succeeds again on the other one.
		expect(outcomes.filter(o => o.at > killedAt + 6000 && o.status !== 200)).toEqual([]);
		await expectAcknowledgedWritesKept(outcomes, author);

		await startNode("posts-a", "posts");
		await waitForServing("posts-a", author);
		const recovered = await runLoad(3, 8, mixedLoad(author, known));
		expect(statusCounts(recovered)).toEqual({ "read 200": expect.any(Number), "write 200": expect.any(Number) });
	}, 90_000);

	test("NATS restarted during load: the nodes reconnect and serve again without restarting themselves", async () => {
		const pids = [...nodes.values()].map(n => n.process.child.pid);
		const load = runLoad(20, 6, mixedLoad(author, known), 10_000);
		await sleep(2000);
		await nats.stop();
		await sleep(1500);
		await nats.resume();
		const outcomes = await load;
		const late = outcomes.filter(o => o.at > 16_000);
		expect(late.length).toBeGreaterThan(0);
		expect(late.filter(o => o.status !== 200)).toEqual([]);
		expect(Object.keys(statusCounts(outcomes)).filter(k => !/ (200|503)$/.test(k))).toEqual([]);
		expect([...nodes.values()].map(n => n.process.child.pid)).toEqual(pids);
		expect([...nodes.values()].every(n => n.process.child.exitCode === null)).toBe(true);
		await expectAcknowledgedWritesKept(outcomes, author);
	}, 90_000);
});
