import { connect } from "nats";
import { adminHeaders as admin, describeCluster, GatewayClient, sleep, TestCluster } from "./support/cluster";
import { WireRecord } from "./support/plaza";
import { failoverFigures, Outcome, runLoad, statusCounts } from "./support/load";

/**
 * Issue 8's claims, shown with the built entry point: every service in a process of its own
 * (two posts nodes), joined over a real nats-server, sharing one PostgreSQL database.
 * @long-running (started first, see test/support/sequencer.js)
 */
describeCluster("the distributed mode: a process per service over NATS, one PostgreSQL store", () => {
	let cluster: TestCluster;
	let gateway: GatewayClient;
	/** A gateway that waits for an answer as long as a production one does (REQUEST_TIMEOUT_MS' default). */
	let patientGateway: GatewayClient;
	let url: string;
	const startNode = (name: string, services: string) => cluster.startNode(name, services);
	const node = (name: string) => cluster.node(name);
	const logLines = (n: { name: string }) => cluster.logLines(n.name);
	const call = (
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
		signal?: AbortSignal,
	) => gateway.call(method, path, body, headers, signal);

	/**
	 * Until a posts node has served a call: the gateway routes to it. Searches here ask for a second
	 * page (Offset=1), which the gateway never keeps, so that every one reaches a posts node.
	 */
	const waitForServing = async (name: string, author: { token: string }) => {
		const deadline = Date.now() + 20_000;
		const before = logLines(node(name)).filter(l => l.event === "call").length;
		while (logLines(node(name)).filter(l => l.event === "call").length === before) {
			if (Date.now() > deadline) throw new Error(`${name} serves nothing`);
			await call("GET", "/Search/Posts?TagNames=load&Offset=1", undefined, { "X-ss-id": author.token });
		}
	};

	const signUp = (name: string) => gateway.signUp(name);

	/**
	 * Half reads (tag search, find a post written before), half writes (new posts): the steady load of the failure tests.
	 */
	const mixedLoad =
		(author: { userId: string; token: string }, known: string[], via?: GatewayClient) => (i: number) => {
			const headers = { "X-ss-id": author.token };
			const client = via ?? gateway;
			if (i % 2 === 0) {
				return {
					kind: "write" as const,
					send: async (signal: AbortSignal) => {
						const reply = await client.call(
							"POST",
							"/Posts",
							{ AuthorId: author.userId, Content: `load ${i}`, Tags: ["load"] },
							headers,
							signal,
						);
						return { status: reply.status, id: reply.status === 200 ? String(reply.body.Id) : undefined };
					},
				};
			}
			return {
				kind: "read" as const,
				send: async (signal: AbortSignal) => {
					const reply =
						i % 4 === 1
							? await client.call("GET", "/Search/Posts?TagNames=load&Limit=5&Offset=1", undefined, headers, signal)
							: await client.call("GET", `/Posts/${known[i % known.length]}`, undefined, headers, signal);
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
			const statuses = await Promise.all(
				batch.map(id => call("GET", `/Posts/${id}`, undefined, { "X-ss-id": reader.token }).then(r => r.status)),
			);
			batch.forEach((id, j) => statuses[j] !== 200 && missing.push(`${id}: ${statuses[j]}`));
		}
		expect(missing).toEqual([]);
	};

	let author: { userId: string; token: string };
	const known: string[] = [];

	beforeAll(async () => {
		cluster = await TestCluster.start();
		await Promise.all([
			startNode("users-1", "users"),
			startNode("graph-1", "graph"),
			startNode("posts-a", "posts"),
			startNode("posts-b", "posts"),
			startNode("venues-1", "venues"),
			startNode("systems-1", "systems"),
			cluster.startGateway("gateway-1").then(client => (gateway = client)),
			cluster
				.startGateway("gateway-patient", { REQUEST_TIMEOUT_MS: "10000" })
				.then(client => (patientGateway = client)),
		]);
		url = gateway.url;
		await gateway.waitForCluster();
		author = await signUp("author");
		for (let i = 0; i < 10; i++)
			known.push(
				String(
					(
						await call(
							"POST",
							"/Posts",
							{ AuthorId: author.userId, Content: `seed ${i}`, Tags: ["load"] },
							{ "X-ss-id": author.token },
						)
					).body.Id,
				),
			);
	}, 90_000);

	afterAll(() => cluster?.stop(), 60_000);

	test("the whole API flow: register, connect, post, comment, search, each service in its own process", async () => {
		const [ann, bob] = [await signUp("ann"), await signUp("bob")];
		const connected = await call(
			"POST",
			"/Connections",
			{ OwnerId: ann.userId, ConnectToId: bob.userId },
			{ "X-ss-id": ann.token },
		);
		expect(connected.status).toBe(200);
		const post = await call(
			"POST",
			"/Posts",
			{ AuthorId: ann.userId, Content: "over NATS", IsPrivate: true, RecipientIds: [bob.userId], Tags: ["cluster"] },
			{ "X-ss-id": ann.token },
		);
		expect(post.status).toBe(200);
		const comment = await call(
			"POST",
			`/Posts/${post.body.Id}/Comments`,
			{ AuthorId: bob.userId, Content: "received" },
			{ "X-ss-id": bob.token },
		);
		expect(comment.status).toBe(200);
		const found = await call("GET", "/Search/Posts?TagNames=cluster", undefined, { "X-ss-id": bob.token });
		expect(found.body.map(p => p.Id)).toEqual([post.body.Id]);
		expect((found.body[0].Comments as WireRecord[]).map(c => c.Content)).toEqual(["received"]);
		const user = await call("GET", `/Users/${bob.userId}`, undefined, { "X-ss-id": bob.token });
		expect((user.body.Connections as WireRecord[]).map(c => c.UserId)).toEqual([ann.userId]);
		const stranger = await signUp("eve");
		expect((await call("GET", `/Posts/${post.body.Id}`, undefined, { "X-ss-id": stranger.token })).status).toBe(404);

		// Both posts nodes take their share of the calls.
		for (let i = 0; i < 20; i++)
			await call("GET", "/Search/Posts?TagNames=cluster&Offset=1", undefined, { "X-ss-id": bob.token });
		for (const name of ["posts-a", "posts-b"])
			expect(
				logLines(node(name)).filter(l => l.event === "call" && l.action?.startsWith("posts.")).length,
			).toBeGreaterThan(0);
	}, 60_000);

	test("a block made through one gateway hides at once through the other: its kept answers and both posts nodes' caches", async () => {
		const [ann, bob] = [await signUp("blocker"), await signUp("blocked")];
		const as = (who: { token: string }) => ({ "X-ss-id": who.token });
		expect(
			(await call("POST", "/Subscriptions", { SubscriberId: bob.userId, SubscribedToId: ann.userId }, as(bob))).status,
		).toBe(200);
		const post = await call("POST", "/Posts", { AuthorId: ann.userId, Content: "before the block" }, as(ann));
		expect(post.status).toBe(200);
		const viaOther = (path: string) => patientGateway.call("GET", path, undefined, as(bob));
		// Read twice through the other gateway: kept there, and cached by both posts nodes' turns.
		for (let i = 0; i < 2; i++) {
			expect((await viaOther(`/Posts/${post.body.Id}`)).status).toBe(200);
			expect((await viaOther(`/Users/${bob.userId}/Feed`)).body.map(p => p.Id)).toContain(post.body.Id);
		}

		const block = await call("POST", "/Blocks", { OwnerId: ann.userId, BlockedId: bob.userId }, as(ann));
		expect(block.status).toBe(200);
		for (let i = 0; i < 4; i++) {
			expect((await viaOther(`/Posts/${post.body.Id}`)).status).toBe(404);
			expect((await viaOther(`/Users/${bob.userId}/Feed`)).body.map(p => p.Id)).not.toContain(post.body.Id);
		}
		expect((await viaOther(`/Users/${bob.userId}/Subscriptions`)).body).toEqual([]);
		const refused = await patientGateway.call(
			"POST",
			"/Connections",
			{ OwnerId: bob.userId, ConnectToId: ann.userId },
			as(bob),
		);
		expect(refused.status).toBe(403);
	}, 60_000);

	test("a request id follows the call: in the gateway's log and in the logs of the services that served it", async () => {
		const requestID = `trace-${Date.now()}`;
		// A session the gateway has not seen yet (it caches those it has), so that sessions.resolve is in the trace.
		const tracer = await signUp("tracer");
		const reply = await call("GET", `/Users/${author.userId}`, undefined, {
			"X-ss-id": tracer.token,
			"X-Request-ID": requestID,
		});
		expect(reply.status).toBe(200);
		expect(reply.headers.get("x-request-id")).toBe(requestID);
		await sleep(300);
		expect(logLines(node("gateway-1")).find(l => l.requestID === requestID && l.event === "request")).toMatchObject({
			path: `/Users/${author.userId}`,
			status: 200,
		});
		expect(
			logLines(node("users-1"))
				.filter(l => l.requestID === requestID)
				.map(l => l.action),
		).toEqual(expect.arrayContaining(["users.find", "sessions.resolve"]));
		expect(
			logLines(node("graph-1"))
				.filter(l => l.requestID === requestID)
				.map(l => l.action),
		).toContain("graph.embedFor");
	});

	test("the bus carries only sealed packets (CLUSTER_SECRET), and the nodes open every one of them", async () => {
		const nats = cluster.nats;
		const listener = await connect({ servers: `127.0.0.1:${nats.port}`, user: nats.user, pass: nats.password });
		const carried: Buffer[] = [];
		listener.subscribe("MOL-plaza.>", { callback: (_err, msg) => carried.push(Buffer.from(msg.data)) });
		await listener.flush();
		const ann = await signUp("sealed");
		expect((await call("GET", `/Users/${ann.userId}`, undefined, { "X-ss-id": ann.token })).status).toBe(200);
		await sleep(300);
		await listener.close();
		expect(carried.length).toBeGreaterThan(4);
		// Moleculer's packets are JSON naming their sender; the user's name travels in the registration.
		expect(carried.filter(data => data.includes('"sender"') || data.includes("sealed"))).toEqual([]);
		const dropped = [...cluster.nodes.values()].flatMap(n => logLines(n).filter(l => l.event === "bus-packet-dropped"));
		expect(dropped).toEqual([]);
	});

	test("a write captured on the bus and published again, to the node it was sent to or to the other posts node, is made once", async () => {
		const nats = cluster.nats;
		const listener = await connect({ servers: `127.0.0.1:${nats.port}`, user: nats.user, pass: nats.password });
		const captured: Array<{ subject: string; data: Uint8Array }> = [];
		const capture = listener.subscribe("MOL-plaza.>", {
			callback: (_err, msg) => /\.REQB?\./.test(msg.subject) && captured.push({ subject: msg.subject, data: msg.data }),
		});
		await listener.flush();
		const tag = `replayed${Date.now()}`;
		expect(
			(
				await call(
					"POST",
					"/Posts",
					{ AuthorId: author.userId, Content: "once", Tags: [tag] },
					{ "X-ss-id": author.token },
				)
			).status,
		).toBe(200);
		await listener.flush();
		capture.unsubscribe();
		expect(captured.length).toBeGreaterThan(0);
		const subjects = new Set(["MOL-plaza.REQ.posts-a", "MOL-plaza.REQ.posts-b", ...captured.map(c => c.subject)]);
		// Several times: a packet published to a queue group reaches whichever node nats-server picks.
		for (let i = 0; i < 8; i++)
			for (const { data } of captured) for (const subject of subjects) listener.publish(subject, data);
		await listener.flush();
		await sleep(1000);
		await listener.close();
		const found = await call("GET", `/Search/Posts?TagNames=${tag}`, undefined, { "X-ss-id": author.token });
		expect(found.body.map(p => p.Content)).toEqual(["once"]);
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
		const load = runLoad({ seconds: 5, concurrency: 8 }, mixedLoad(author, known));
		await sleep(1500);
		stopping.process.child.kill("SIGTERM");
		const outcomes = await load;
		expect(await stopping.process.exited).toBe(0);
		expect(statusCounts(outcomes)).toEqual({ "read 200": expect.any(Number), "write 200": expect.any(Number) });
		await expectAcknowledgedWritesKept(outcomes, author);
		await startNode("posts-b", "posts");
		await waitForServing("posts-b", author);
	}, 60_000);

	test("a posts node killed (SIGKILL) under load costs only the requests in flight on it, and seconds, not the request timeout: reads are retried on the survivor, no acknowledged write is lost, and the node is used again when it returns", async () => {
		const killed = node("posts-a");
		const load = runLoad({ seconds: 6, concurrency: 8 }, mixedLoad(author, known, patientGateway));
		await sleep(2000);
		const killedAt = 2000;
		killed.process.child.kill("SIGKILL");
		const outcomes = await load;
		const figures = failoverFigures(outcomes, killedAt);
		console.info(
			`SIGKILL failover: ${JSON.stringify({ ...figures, failedReads: figures.failedReads.length, failedWrites: figures.failedWrites.length })}`,
		);

		// Calls in flight on the dead node are given up as soon as nats-server says its connection is gone:
		// reads are retried on the survivor; only writes sent there may fail, and they say their outcome is
		// unknown (they may have been written). Each within 4 s, though the gateway would wait 10 s.
		expect(outcomes.filter(o => o.at - o.sentAt > 4000)).toEqual([]);
		expect(figures.failedReads).toEqual([]);
		expect(outcomes.filter(o => o.status !== 200 && !(o.kind === "write" && o.sentAt < killedAt + 1000))).toEqual([]);
		expect(figures.failedWrites.length).toBeLessThanOrEqual(8);
		expect(figures.failedWrites.filter(o => o.status !== 504)).toEqual([]);
		// The survivor answers a request sent after the kill within a second.
		expect(figures.firstSurvivorAnswerMs).toBeLessThan(1000);
		// Every request sent a second after the kill is served, in the time such a request takes.
		expect(figures.after.statuses).toEqual({ "read 200": expect.any(Number), "write 200": expect.any(Number) });
		await expectAcknowledgedWritesKept(outcomes, author);

		await startNode("posts-a", "posts");
		await waitForServing("posts-a", author);
		const recovered = await runLoad({ seconds: 2, concurrency: 8 }, mixedLoad(author, known));
		expect(statusCounts(recovered)).toEqual({ "read 200": expect.any(Number), "write 200": expect.any(Number) });
	}, 90_000);

	test("NATS restarted during load: the nodes reconnect and serve again without restarting themselves", async () => {
		const pids = [...cluster.nodes.values()].map(n => n.process.child.pid);
		// The load ends once everything has been served for 3 s since the bus came back (30 s at most).
		let resumedAt = Infinity;
		const servedFor = (outcomes: Outcome[], now: number) =>
			now - Math.max(resumedAt, ...outcomes.filter(o => o.status !== 200).map(o => o.at));
		const began = Date.now();
		const load = runLoad(
			{
				seconds: 30,
				concurrency: 6,
				timeoutMs: 10_000,
				pauseMs: 20,
				until: (outcomes, now) => servedFor(outcomes, now) >= 3000,
			},
			mixedLoad(author, known),
		);
		await sleep(2000);
		await cluster.nats.stop();
		await sleep(1500);
		await cluster.nats.resume();
		resumedAt = Date.now() - began;
		const outcomes = await load;
		const lastFailure = Math.max(0, ...outcomes.filter(o => o.status !== 200).map(o => o.at));
		console.info(
			`NATS restart: bus back at ${resumedAt} ms, last failed answer at ${lastFailure} ms, ${JSON.stringify(statusCounts(outcomes))}`,
		);
		expect(servedFor(outcomes, outcomes.at(-1)!.at)).toBeGreaterThanOrEqual(3000);
		// While the bus is down: 503 for what was certainly not done, 504 for a write that may have been.
		expect(Object.keys(statusCounts(outcomes)).filter(k => !/ (200|503)$/.test(k) && k !== "write 504")).toEqual([]);
		expect([...cluster.nodes.values()].map(n => n.process.child.pid)).toEqual(pids);
		expect([...cluster.nodes.values()].every(n => n.process.child.exitCode === null)).toBe(true);
		await expectAcknowledgedWritesKept(outcomes, author);
	}, 90_000);
});
