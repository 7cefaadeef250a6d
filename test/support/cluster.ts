import { randomBytes } from "node:crypto";
import { ADMIN_KEY, WireRecord } from "./plaza";
import { availableParallelism } from "node:os";
import { freePort, RunningProcess, Slots, startMain, waitForHealthy } from "./process";
import { postgresTestsOn, testDatabase } from "./postgres";
import { natsServerBinary, TestNats } from "./nats";

/** Cluster tests need a PostgreSQL server and nats-server; without them they are skipped. */
export const describeCluster = postgresTestsOn && natsServerBinary ? describe : describe.skip;

/** One process of the cluster: the built entry point with some services. */
export interface ClusterNode {
	name: string;
	services: string;
	probePort: number;
	process: RunningProcess;
}

/** A JSON log line of a node (LOG_FORMAT=json). */
export interface LogLine {
	event?: string;
	action?: string;
	requestID?: string;
	path?: string;
	status?: number;
}

/** A reply of a gateway; `body` is the JSON parsed (a record or a list, as the test expects). */
export interface ClusterReply {
	status: number;
	headers: Headers;
	body: WireRecord & WireRecord[];
}

export const adminHeaders = { Authorization: `Bearer ${ADMIN_KEY}` };

const guid = "0f8fad5bd9cb469fa16570867728950e";
export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/**
 * Plaza's distributed mode for a test: processes of the built entry point (a few services each),
 * joined over a nats-server of the test's own (with credentials), sealing the bus with a random
 * CLUSTER_SECRET, sharing one fresh PostgreSQL database; JSON logs.
 */
export class TestCluster {
	readonly nodes = new Map<string, ClusterNode>();
	private readonly boots = new Slots(Math.max(1, availableParallelism()));

	private constructor(
		private readonly database: ReturnType<typeof testDatabase>,
		readonly nats: TestNats,
		private readonly env: Record<string, string>,
	) {}

	static async start(): Promise<TestCluster> {
		const database = testDatabase();
		await database.create();
		const nats = await TestNats.start();
		return new TestCluster(database, nats, {
			TRANSPORTER: nats.url,
			CLUSTER_SECRET: randomBytes(32).toString("hex"),
			DATABASE_URL: database.url,
			MONGO_URI: "",
			ADMIN_API_KEY: ADMIN_KEY,
			LOG_FORMAT: "json",
			LOG_LEVEL: "info",
			HEARTBEAT_INTERVAL_SECONDS: "1",
			HEARTBEAT_TIMEOUT_SECONDS: "3",
			REQUEST_TIMEOUT_MS: "3000",
			RATE_LIMIT_PER_MINUTE: "1000000",
		});
	}

	/**
	 * Starts (or starts again, on the same probe port) a node, and waits until it is ready. Nodes
	 * asked for at once boot a core's worth at a time: seven booting together on two loaded cores
	 * each took longer than any fixed wait, and failed a run that had nothing wrong.
	 */
	startNode(name: string, services: string, extra: Record<string, string> = {}): Promise<ClusterNode> {
		return this.boots.run(async () => {
			const again = this.nodes.get(name)?.probePort;
			for (let attempt = 1; ; attempt++) {
				const probePort = again ?? (await freePort());
				const process = startMain({
					...this.env,
					NODE_ID: name,
					SERVICES: services,
					PROBE_PORT: String(probePort),
					...extra,
				});
				const node = { name, services, probePort, process };
				this.nodes.set(name, node);
				try {
					await waitForHealthy(`http://127.0.0.1:${probePort}/ready`, 60_000, process);
					return node;
				} catch (err) {
					// A probe port found free, then taken by another process before the node bound it: another one.
					if (again !== undefined || attempt >= 3 || !/EADDRINUSE/.test(process.output()) || "PORT" in extra) throw err;
				}
			}
		});
	}

	/**
	 * Starts a gateway node on a port of its own: its client. A port found free can be taken by another
	 * process before the gateway binds it (two test runs at once): then it starts again on another.
	 */
	async startGateway(name: string, extra: Record<string, string> = {}): Promise<GatewayClient> {
		for (let attempt = 1; ; attempt++) {
			const port = await freePort();
			try {
				await this.startNode(name, "gateway", { ...extra, PORT: String(port) });
				return new GatewayClient(`http://127.0.0.1:${port}`);
			} catch (err) {
				if (attempt >= 3 || !/EADDRINUSE/.test(this.node(name).process.output())) throw err;
				this.nodes.delete(name); // new ports, both
			}
		}
	}

	/**
	 * Two gateways and a node per domain (posts on each of `postsNodes`), all ready: for what crosses gateways. Gateways
	 * A and B.
	 */
	async startTwoGateways(postsNodes = ["posts-1"]): Promise<[GatewayClient, GatewayClient]> {
		const gateways = Promise.all([this.startGateway("gateway-a"), this.startGateway("gateway-b")]);
		const others = [
			this.startNode("users-1", "users"),
			this.startNode("graph-1", "graph"),
			...postsNodes.map(name => this.startNode(name, "posts")),
			this.startNode("others-1", "venues,systems"),
		];
		await Promise.all([gateways, ...others]);
		const [a, b] = await gateways;
		await Promise.all([a.waitForCluster(), b.waitForCluster()]);
		return [a, b];
	}

	node(name: string): ClusterNode {
		const node = this.nodes.get(name);
		if (!node) throw new Error(`No node ${name}`);
		return node;
	}

	/** The JSON log lines a node has printed so far. */
	logLines(name: string): LogLine[] {
		return this.node(name)
			.process.output()
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

	/** Stops every node (SIGTERM), then NATS, and drops the database. */
	async stop(): Promise<void> {
		for (const n of this.nodes.values()) if (n.process.child.exitCode === null) n.process.child.kill("SIGTERM");
		await Promise.all([...this.nodes.values()].map(n => n.process.exited));
		await this.nats.stop();
		await this.database.drop();
	}
}

/** Requests to one gateway of a cluster. */
export class GatewayClient {
	constructor(readonly url: string) {}

	async call(
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
		signal?: AbortSignal,
	): Promise<ClusterReply> {
		const res = await fetch(this.url + path, {
			method,
			signal,
			headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		return {
			status: res.status,
			headers: res.headers,
			body: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as WireRecord & WireRecord[],
		};
	}

	/** Registers a user (AutoLogin): their id and session token. */
	async signUp(name: string): Promise<{ userId: string; token: string }> {
		const reply = await this.call("POST", "/register", {
			UserName: `${name}${Date.now()}${Math.floor(Math.random() * 1e6)}`,
			Password: "distributed systems",
			FirstName: name,
			LastName: "Node",
			AutoLogin: true,
		});
		if (reply.status !== 200) throw new Error(`Registration failed: ${reply.status} ${JSON.stringify(reply.body)}`);
		return { userId: String(reply.body.UserId), token: String(reply.body.SessionId) };
	}

	/** Until every domain answers through this gateway (not 503): the nodes have found one another. */
	async waitForCluster(timeoutMs = 30_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		const probes: Array<[string, number]> = [
			["/Users", 200],
			[`/Networks/${guid}`, 404],
			["/Search/Posts", 200],
			[`/Venues/${guid}`, 404],
			["/Systems", 200],
		];
		for (;;) {
			const statuses = await Promise.all(
				probes.map(([path]) => this.call("GET", path, undefined, adminHeaders).then(r => r.status)),
			);
			if (statuses.every((s, i) => s === probes[i][1])) return;
			if (Date.now() > deadline)
				throw new Error(`The cluster did not come together at ${this.url}: ${JSON.stringify(statuses)}`);
			await sleep(200);
		}
	}
}
