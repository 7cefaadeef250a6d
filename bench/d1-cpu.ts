import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { load, RequestSpec } from "./load";
import { parseArgs, SeedManifest } from "./manifest";
import { startBenchPlaza, startService } from "./plaza-process";
import { freePort, mainScript } from "../test/support/process";
import { TestNats } from "../test/support/nats";

/**
 * Where D1 CreatePost's CPU goes: the gateway and the posts node in two processes over a
 * nats-server of their own (as `npm run bench` runs D1), and for each process the CPU it used per
 * request (user and system, from /proc), with requests a second. Compare two builds by running it
 * from each, in turn, several times: the machine's own noise is larger than most single changes.
 * Options: --seconds 8 --connections 50 --users 500 --posts 3000; --profile gateway|posts writes
 * that process's V8 CPU profile (node --cpu-prof) into the run's folder.
 *   node dist/bench/d1-cpu.js --seconds 8
 */
const args = parseArgs(process.argv.slice(2));
const seconds = Number(args.seconds ?? 8);
const connections = Number(args.connections ?? 50);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-d1-cpu-"));

/** User and system CPU a process has used so far, in ms (/proc's ticks are 10 ms). */
function cpuOf(pid: number): { user: number; system: number } {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

async function main(): Promise<void> {
	const dataDir = path.join(work, "data");
	const manifestFile = path.join(work, "manifest.json");
	execFileSync(process.execPath, [path.join(path.dirname(mainScript), "bench", "seed.js"), "--dir", dataDir, "--users", args.users ?? "500", "--posts", args.posts ?? "3000", "--manifest", manifestFile], { stdio: "ignore" });
	const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as SeedManifest;
	const profiled = (name: string): Record<string, string> => (args.profile === name ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(work, "profile")}` } : {});
	const nats = await TestNats.start();
	const common = { TRANSPORTER: nats.url, CLUSTER_SECRET: "bench-cluster-secret-0123456789abcdef", DATA_DIR: dataDir };
	const posts = startService({ ...common, SERVICES: "posts", NODE_ID: "d1-posts", ...profiled("posts") });
	const gateway = await startBenchPlaza({ ...common, SERVICES: "gateway,users,graph,venues,systems", PORT: String(await freePort()), NODE_ID: "d1-gateway", ...profiled("gateway") }, "/ready");
	try {
		const sessions: string[] = [];
		for (const UserName of manifest.userNames.slice(0, connections)) {
			const res = await fetch(`${gateway.url}/auth/credentials`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ UserName, Password: manifest.password }) });
			sessions.push(((await res.json()) as { SessionId: string }).SessionId);
		}
		const spec: RequestSpec = {
			method: "POST",
			path: () => "/Posts",
			body: (i, c) => ({ AuthorId: manifest.userIds[c % sessions.length], Content: `Benchmark post ${i}`, Tags: ["bench", `t${i % 100}`] }),
			headers: c => ({ "X-ss-id": sessions[c % sessions.length] }),
		};
		await load(gateway.url, spec, 2, connections);
		const pids = { gateway: gateway.proc.child.pid!, posts: posts.child.pid!, nats: nats.pid! };
		const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuOf(pid)]));
		const own = process.cpuUsage();
		const result = await load(gateway.url, spec, seconds, connections);
		const ownUs = process.cpuUsage(own);
		const requests = result.rps * seconds;
		const perRequest = (ms: number) => Math.round((ms * 1000) / requests);
		const cpu = Object.entries(pids).map(([name, pid]) => {
			const now = cpuOf(pid);
			return `${name} ${perRequest(now.user - before[name].user)}+${perRequest(now.system - before[name].system)}`;
		});
		cpu.push(`load generator ${Math.round((ownUs.user + ownUs.system) / requests)}`);
		console.log(`${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors + result.non2xx}; CPU µs per request (user+system): ${cpu.join(", ")}`);
	} finally {
		await gateway.stop();
		posts.child.kill("SIGTERM");
		await posts.exited;
		await nats.stop();
	}
	if (args.profile) console.log(`profile in ${path.join(work, "profile")}`);
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
