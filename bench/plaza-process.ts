import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, mainScript, RunningProcess, startMain, waitForHealthy } from "../test/support/process";

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

/** CPU time (user and system) the process has used so far, in ms (/proc's clock ticks are 10 ms on Linux). */
export function cpuMsOf(pid: number): number {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
	// Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return (Number(fields[11]) + Number(fields[12])) * 10;
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
