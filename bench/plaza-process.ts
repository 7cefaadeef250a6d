import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, mainScript, RunningProcess, startMain, waitForHealthy } from "../test/support/process";
import { TestNats } from "../test/support/nats";

export const benchAdminKey = "bench-admin-key-0123456789abcdef0123456789";

/** A Plaza process of the benchmark, with its address, start time and memory. */
export interface BenchPlaza {
	url: string;
	proc: RunningProcess;
	/** Milliseconds from spawn to the first answer of `firstPath`. */
	coldStartMs: number;
	/** Resident memory now, in MB. */
	rssMb(): number;
	stop(): Promise<void>;
}

/** Starts dist/main.js with `env`, and times it to the first 200 on `firstPath`. */
export async function startBenchPlaza(env: Record<string, string>, firstPath = "/health"): Promise<BenchPlaza> {
	const port = env.PORT ?? String(await freePort());
	const started = Date.now();
	const proc = startMain({
		ADMIN_API_KEY: benchAdminKey,
		RATE_LIMIT_PER_MINUTE: "100000000",
		LOG_LEVEL: "warn",
		PORT: port,
		...env,
	});
	const url = `http://127.0.0.1:${port}`;
	await waitForAnswer(url + firstPath, proc);
	const coldStartMs = Date.now() - started;
	return {
		url,
		proc,
		coldStartMs,
		rssMb: () => rssMbOf(proc.child.pid!),
		stop: async () => {
			if (proc.child.exitCode !== null) return;
			proc.child.kill("SIGTERM");
			await proc.exited;
		},
	};
}

/** Starts a process of the distributed mode (no HTTP port unless it runs the gateway). */
export function startService(env: Record<string, string>): RunningProcess {
	return startMain({ ADMIN_API_KEY: benchAdminKey, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn", ...env });
}

async function waitForAnswer(url: string, proc: RunningProcess, timeoutMs = 600_000): Promise<void> {
	await waitForHealthy(url, timeoutMs, proc).catch(err => {
		throw new Error(`${(err as Error).message}\n${proc.output()}`);
	});
}

export function rssMbOf(pid: number): number {
	const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
	const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
	return Math.round(kb / 1024);
}

/** User and system CPU time the process has used so far, in ms (/proc's clock ticks are 10 ms on Linux). */
export function cpuTimesOf(pid: number): { user: number; system: number } {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
	// Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** CPU time (user and system) the process has used so far, in ms. */
export function cpuMsOf(pid: number): number {
	const { user, system } = cpuTimesOf(pid);
	return user + system;
}

/** The share of one core the process uses over the next `ms`, in %. */
export async function cpuShareOf(pid: number, ms: number): Promise<number> {
	const before = cpuMsOf(pid);
	await new Promise(resolve => setTimeout(resolve, ms));
	return (100 * (cpuMsOf(pid) - before)) / ms;
}

/** A raw node:http server answering `answer` (what Plaza answered) to every request. */
export async function startReference(
	answer: { status: number; contentType: string; body: Buffer },
	dir: string,
): Promise<{ url: string; stop(): void }> {
	const file = path.join(dir, `answer-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
	fs.writeFileSync(
		file,
		JSON.stringify({ status: answer.status, contentType: answer.contentType, body: answer.body.toString("base64") }),
	);
	const child = spawn(process.execPath, [path.join(path.dirname(mainScript), "bench", "reference-server.js"), file], {
		stdio: ["ignore", "pipe", "inherit"],
	});
	const port = await new Promise<string>((resolve, reject) => {
		child.stdout.once("data", chunk => resolve(String(chunk).trim()));
		child.once("exit", code => reject(new Error(`reference server exited (${code})`)));
	});
	return { url: `http://127.0.0.1:${port}`, stop: () => void child.kill("SIGTERM") };
}

/**
 * Plaza in several processes over a nats-server of its own: a node with the gateway (and the services it names), and
 * the other nodes by name.
 */
export interface ClusterPlaza {
	gateway: BenchPlaza;
	nodes: Record<string, RunningProcess>;
	nats: TestNats;
	/** Every process of the deployment by name (the nats-server's included): what its CPU is the sum of. */
	pids(): Record<string, number>;
	stop(): Promise<void>;
}

/**
 * Starts a nats-server, each of `nodes` (name: its SERVICES) and then the gateway node with
 * `gatewayServices`, all with `common` (the store: DATA_DIR or DATABASE_URL) and what `env` adds by
 * name ("gateway" or a node's); resolves once the gateway reaches every service over the bus.
 */
export async function startCluster(
	common: Record<string, string>,
	gatewayServices: string,
	nodes: Record<string, string>,
	env: Record<string, Record<string, string>> = {},
): Promise<ClusterPlaza> {
	const nats = await TestNats.start();
	const shared = { TRANSPORTER: nats.url, CLUSTER_SECRET: "bench-cluster-secret-0123456789abcdef", ...common };
	const running = Object.fromEntries(
		Object.entries(nodes).map(([name, services]) => [
			name,
			startService({ ...shared, SERVICES: services, NODE_ID: `bench-${name}`, ...env[name] }),
		]),
	);
	const stopNodes = async () => {
		for (const node of Object.values(running)) {
			node.child.kill("SIGTERM");
			await node.exited;
		}
		await nats.stop();
	};
	let gateway: BenchPlaza;
	try {
		gateway = await startBenchPlaza(
			{
				...shared,
				SERVICES: gatewayServices,
				PORT: String(await freePort()),
				NODE_ID: "bench-gateway",
				...env.gateway,
			},
			"/ready",
		);
	} catch (err) {
		await stopNodes();
		throw err;
	}
	const cluster: ClusterPlaza = {
		gateway,
		nodes: running,
		nats,
		pids: () => ({
			gateway: gateway.proc.child.pid!,
			...Object.fromEntries(Object.entries(running).map(([name, node]) => [name, node.child.pid!])),
			nats: nats.pid!,
		}),
		stop: async () => {
			await gateway.stop();
			await stopNodes();
		},
	};
	try {
		await untilServed(gateway.url);
	} catch (err) {
		await cluster.stop();
		throw err;
	}
	return cluster;
}

/**
 * Waits until the gateway reaches the users, graph and posts services (a 503 means one is not found on the bus yet).
 */
async function untilServed(url: string): Promise<void> {
	const probes = [
		"/Users?Limit=1",
		`/Users/${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}/Connections`,
		"/Search/Posts?Limit=1",
	];
	const headers = { Authorization: `Bearer ${benchAdminKey}` };
	for (let i = 0; i < 600; i++) {
		const statuses = await Promise.all(probes.map(async probe => (await fetch(url + probe, { headers })).status));
		if (statuses.every(status => status !== 503)) return;
		await new Promise(resolve => setTimeout(resolve, 100));
	}
	throw new Error(`${url}: some services were still out of reach after a minute`);
}

/** D1's deployment: the gateway node with the other domains, and posts in a node of its own, on one data folder. */
export function startD1(
	dataDir: string,
	env: { gateway?: Record<string, string>; posts?: Record<string, string> } = {},
): Promise<ClusterPlaza> {
	return startCluster(
		{ DATA_DIR: dataDir },
		"gateway,users,graph,venues,systems",
		{ posts: "posts" },
		{ gateway: env.gateway ?? {}, posts: env.posts ?? {} },
	);
}
