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
	const proc = startMain({ ADMIN_API_KEY: benchAdminKey, RATE_LIMIT_PER_MINUTE: "100000000", LOG_LEVEL: "warn", PORT: port, ...env });
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
export async function startReference(answer: { status: number; contentType: string; body: Buffer }, dir: string): Promise<{ url: string; stop(): void }> {
	const file = path.join(dir, `answer-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
	fs.writeFileSync(file, JSON.stringify({ status: answer.status, contentType: answer.contentType, body: answer.body.toString("base64") }));
	const child = spawn(process.execPath, [path.join(path.dirname(mainScript), "bench", "reference-server.js"), file], { stdio: ["ignore", "pipe", "inherit"] });
	const port = await new Promise<string>((resolve, reject) => {
		child.stdout.once("data", chunk => resolve(String(chunk).trim()));
		child.once("exit", code => reject(new Error(`reference server exited (${code})`)));
	});
	return { url: `http://127.0.0.1:${port}`, stop: () => void child.kill("SIGTERM") };
}

/** D1's deployment: a nats-server of its own, a posts node, and a gateway node with the other domains, on one data folder. */
export interface D1Plaza {
	gateway: BenchPlaza;
	posts: RunningProcess;
	nats: TestNats;
	stop(): Promise<void>;
}

/** Starts D1's processes; `env` adds to each node's environment by its role (a profiler's NODE_OPTIONS, say). */
export async function startD1(dataDir: string, env: { gateway?: Record<string, string>; posts?: Record<string, string> } = {}): Promise<D1Plaza> {
	const nats = await TestNats.start();
	const common = { TRANSPORTER: nats.url, CLUSTER_SECRET: "bench-cluster-secret-0123456789abcdef", DATA_DIR: dataDir };
	const posts = startService({ ...common, SERVICES: "posts", NODE_ID: "bench-posts", ...env.posts });
	const stopPosts = async () => {
		posts.child.kill("SIGTERM");
		await posts.exited;
		await nats.stop();
	};
	let gateway: BenchPlaza;
	try {
		gateway = await startBenchPlaza({ ...common, SERVICES: "gateway,users,graph,venues,systems", PORT: String(await freePort()), NODE_ID: "bench-gateway", ...env.gateway }, "/ready");
	} catch (err) {
		await stopPosts();
		throw err;
	}
	return {
		gateway,
		posts,
		nats,
		stop: async () => {
			await gateway.stop();
			await stopPosts();
		},
	};
}
