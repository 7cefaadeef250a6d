import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { load } from "./load";
import { parseArgs } from "./manifest";
import { cpuTimesOf, startD1 } from "./plaza-process";
import { scenarios, seed, signIn } from "./scenarios";

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

async function main(): Promise<void> {
	const dataDir = path.join(work, "data");
	const manifest = seed(work, { dir: dataDir }, Number(args.users ?? 500), Number(args.posts ?? 3000));
	const profiled = (name: string): Record<string, string> => (args.profile === name ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(work, "profile")}` } : {});
	const d1 = await startD1(dataDir, { gateway: profiled("gateway"), posts: profiled("posts") });
	try {
		const { gateway, posts, nats } = d1;
		const spec = scenarios(manifest, await signIn(gateway.url, manifest, connections)).W1;
		await load(gateway.url, spec, 2, connections);
		const pids = { gateway: gateway.proc.child.pid!, posts: posts.child.pid!, nats: nats.pid! };
		const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuTimesOf(pid)]));
		const own = process.cpuUsage();
		const result = await load(gateway.url, spec, seconds, connections);
		const ownUs = process.cpuUsage(own);
		const requests = result.rps * seconds;
		const perRequest = (ms: number) => Math.round((ms * 1000) / requests);
		const cpu = Object.entries(pids).map(([name, pid]) => {
			const now = cpuTimesOf(pid);
			return `${name} ${perRequest(now.user - before[name].user)}+${perRequest(now.system - before[name].system)}`;
		});
		cpu.push(`load generator ${Math.round((ownUs.user + ownUs.system) / requests)}`);
		console.log(`${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors + result.non2xx}; CPU µs per request (user+system): ${cpu.join(", ")}`);
	} finally {
		await d1.stop();
	}
	if (args.profile) console.log(`profile in ${path.join(work, "profile")}`);
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
