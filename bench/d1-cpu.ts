import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { load } from "./load";
import { parseArgs } from "./manifest";
import { startBenchPlaza, startD1 as startD1Processes } from "./plaza-process";
import { cpuPerRequest } from "./cpu";
import { scenarios, seed, signIn } from "./scenarios";

/**
 * Where D1 CreatePost's CPU goes: the gateway and the posts node in two processes over a
 * nats-server of their own (as `npm run bench` runs D1), and for each process the CPU it used per
 * request (user and system, from /proc), with requests a second. Compare two builds by running it
 * from each, in turn, several times: the machine's own noise is larger than most single changes.
 * Options: --seconds 8 --connections 50 --users 500 --posts 3000; --profile gateway|posts writes
 * that process's V8 CPU profile (node --cpu-prof) into the run's folder. --one-process runs the
 * same load on one embedded process (W1's shape; --profile plaza profiles it): the difference
 * between the two is what the hop over NATS costs.
 *   node dist/bench/d1-cpu.js --seconds 8 [--one-process]
 */
const args = parseArgs(process.argv.slice(2));
const seconds = Number(args.seconds ?? 8);
const connections = Number(args.connections ?? 50);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-d1-cpu-"));

async function main(): Promise<void> {
	const dataDir = path.join(work, "data");
	const manifest = seed(work, { dir: dataDir }, Number(args.users ?? 500), Number(args.posts ?? 3000));
	const plaza = args["one-process"] ? await startOneProcess(dataDir) : await startD1(dataDir);
	try {
		const spec = scenarios(manifest, await signIn(plaza.url, manifest, connections)).W1;
		await load(plaza.url, spec, 2, connections);
		const processes = Object.entries(plaza.pids).map(([group, pid]) => ({ group, pid }));
		const { result, groups, loadGenerator } = await cpuPerRequest(
			async () => processes,
			() => load(plaza.url, spec, seconds, connections),
		);
		const total = groups.reduce((sum, p) => sum + p.user + p.system, loadGenerator);
		const cpu = [...groups.map(p => `${p.group} ${p.user}+${p.system}`), `load generator ${loadGenerator}`];
		console.log(
			`${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors + result.non2xx}; CPU µs per request (user+system): ${cpu.join(", ")}`,
		);
		// What the machine could give were every core busy all the time with this CPU per request.
		console.log(
			`${total} µs of CPU per request in all: ${os.cpus().length} cores always busy would serve at most ${Math.round((os.cpus().length * 1e6) / total)} req/s`,
		);
	} finally {
		await plaza.stop();
	}
	if (args.profile) console.log(`profile in ${path.join(work, "profile")}`);
}

/** The processes under load, by name, and the address the load goes to. */
interface Deployment {
	url: string;
	pids: Record<string, number>;
	stop(): Promise<void>;
}

/** The environment that has the process named `name` write a V8 CPU profile, if --profile names it. */
function profiled(name: string): Record<string, string> {
	return args.profile === name ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(work, "profile")}` } : {};
}

async function startOneProcess(dataDir: string): Promise<Deployment> {
	const plaza = await startBenchPlaza({ DATA_DIR: dataDir, ...profiled("plaza") });
	return { url: plaza.url, pids: { plaza: plaza.proc.child.pid! }, stop: () => plaza.stop() };
}

async function startD1(dataDir: string): Promise<Deployment> {
	const d1 = await startD1Processes(dataDir, { gateway: profiled("gateway"), posts: profiled("posts") });
	return { url: d1.gateway.url, pids: d1.pids(), stop: () => d1.stop() };
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
