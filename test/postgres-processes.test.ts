import { randomBytes } from "node:crypto";
import { RunningProcess, startMain } from "./support/process";
import { natsServerBinary, TestNats } from "./support/nats";
import { postgresTestsOn, testDatabase } from "./support/postgres";
import { signUpAll, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { defaultConfig } from "../shared/config";

/**
 * Issue 7's claim for the distributed mode: with PostgreSQL as the shared store, the unique
 * constraint and the atomic counters hold across processes. Two graph processes (the built entry
 * point) share one database over NATS with this process's gateway and users service.
 */
const describeWithServers = postgresTestsOn && natsServerBinary ? describe : describe.skip;

describeWithServers("the graph service in two processes on one PostgreSQL database", () => {
	const database = testDatabase();
	const graphs: RunningProcess[] = [];
	let nats: TestNats | undefined;
	let plaza: TestPlaza | undefined;

	beforeAll(async () => {
		await database.create();
		nats = await TestNats.start();
		const transporter = nats.url;
		const secret = randomBytes(32).toString("hex");
		// JSON logs: each process logs a line per call it serves, to show below that both served.
		for (let i = 0; i < 2; i++)
			graphs.push(
				startMain({
					TRANSPORTER: transporter,
					CLUSTER_SECRET: secret,
					SERVICES: "graph",
					DATABASE_URL: database.url,
					MONGO_URI: "",
					LOG_FORMAT: "json",
					LOG_LEVEL: "info",
				}),
			);
		plaza = await startPlaza({
			transporter,
			services: ["users", "gateway"],
			store: { kind: "postgres", url: database.url },
			cluster: { ...defaultConfig().cluster, secret },
		});
		await graphNodes(plaza, 2, graphs);
	}, 90_000);

	afterAll(async () => {
		await plaza?.stop();
		for (const graph of graphs) graph.child.kill("SIGTERM");
		await Promise.all(graphs.map(graph => graph.exited));
		await nats?.stop();
		await database.drop();
	});

	test("20 simultaneous identical CreateConnection calls, spread over both processes, make exactly one pair", async () => {
		const [dan, eve] = await Promise.all([plaza!.signUp(), plaza!.signUp()]);
		const replies = await Promise.all(
			Array.from({ length: 20 }, () =>
				dan.http("POST", "/Connections", { OwnerId: dan.userId, ConnectToId: eve.userId }),
			),
		);
		// On a failure, what the answers said and what the graph processes logged as errors (a 500 was seen once, under two
		// test runs at once).
		const failed = replies.filter(r => r.status >= 500).map(r => r.text);
		const logged = failed.length
			? graphs.flatMap(graph => graph.output().split("\n")).filter(line => /"level":"(error|warn)"/.test(line))
			: [];
		expect({ statuses: replies.map(r => r.status).sort(), failed, logged: logged.slice(-5) }).toEqual({
			statuses: [200, ...Array<number>(19).fill(409)],
			failed: [],
			logged: [],
		});
		expect((await dan.http<WireRecord[]>("GET", `/Users/${dan.userId}/Connections`)).body).toHaveLength(1);
		expect((await eve.http<WireRecord[]>("GET", `/Users/${eve.userId}/Connections`)).body).toHaveLength(1);
		// The bus hands each call to one of the two at random: both served some (all 20 on one: odds of 2 in a million).
		const served = graphs.map(
			graph =>
				graph
					.output()
					.split("\n")
					.filter(line => line.includes('"event":"call"') && line.includes('"action":"graph.connect"')).length,
		);
		expect({ served, both: served.every(count => count > 0) }).toEqual({
			served: [expect.any(Number), expect.any(Number)],
			both: true,
		});
		expect(served[0] + served[1]).toBe(20);
	});

	test("20 simultaneous CreateNetworkMember calls over both processes: NumberOfMembers exact", async () => {
		const owner = await plaza!.signUp();
		const network = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Spread", IsOpen: true }))
			.body;
		const users = await signUpAll(
			plaza!,
			Array.from({ length: 20 }, () => ({})),
		);
		const replies = await Promise.all(
			users.map(u => u.http("POST", `/Networks/${network.Id}/Members`, { UserId: u.userId })),
		);
		expect(replies.map(r => r.status)).toEqual(Array<number>(20).fill(200));
		expect((await owner.http("GET", `/Networks/${network.Id}`)).body.NumberOfMembers).toBe(21);
	});
});

/**
 * Waits until the gateway's broker sees the graph service on `count` other nodes, so calls are spread
 * over them: as long as their processes live (booting two on a loaded machine is slow), not a moment
 * after one has died.
 */
async function graphNodes(
	plaza: TestPlaza,
	count: number,
	processes: RunningProcess[],
	timeoutMs = 75_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const services = plaza.broker.registry.getServiceList({ onlyAvailable: true }) as Array<{
			name: string;
			nodeID: string;
		}>;
		if (services.filter(s => s.name === "graph" && s.nodeID !== plaza.broker.nodeID).length >= count) return;
		const dead = processes.find(p => p.child.exitCode !== null);
		if (dead) throw new Error(`A graph process exited (${dead.child.exitCode}) before it joined:\n${dead.output()}`);
		if (Date.now() > deadline) throw new Error(`The graph service did not come up on ${count} nodes`);
		await new Promise(resolve => setTimeout(resolve, 100));
	}
}
