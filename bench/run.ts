import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { load, LoadResult, RequestSpec, sample } from "./load";
import { scenarios, seed, signIn } from "./scenarios";
import { parseArgs, SeedManifest } from "./manifest";
import { BenchPlaza, rssMbOf, startBenchPlaza, startD1, startReference } from "./plaza-process";
import { testDatabase } from "../test/support/postgres";
import { socialBenchmark } from "./social";

/**
 * `npm run bench`: each scenario of issue 12 against a raw node:http server answering the same
 * bytes, in one run, interleaved (reference, Plaza, reference, Plaza…), 50 connections, the median
 * of `--rounds` ratios. Options: --seconds 5 --rounds 3 --users 2000 --posts 13000
 * --scale 1000000 (0 skips S1) --postgres off --nats off --only R1,R2. `--workload social`: the
 * social-network benchmark instead (bench/social.ts, which lists its options).
 */
const args = parseArgs(process.argv.slice(2));
const seconds = Number(args.seconds ?? 5);
const rounds = Number(args.rounds ?? 3);
const users = Number(args.users ?? 2000);
const posts = Number(args.posts ?? 13000);
const scale = Number(args.scale ?? 1_000_000);
const only = args.only?.split(",");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-bench-"));

interface Row {
	scenario: string;
	plaza: LoadResult;
	reference: LoadResult;
	ratio: number;
	note?: string;
}
const rows: Row[] = [];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Reference and Plaza in turn, `rounds` times; the round with the median ratio is reported. */
async function compare(name: string, url: string, spec: RequestSpec, note?: string): Promise<Row | undefined> {
	if (only && !only.some(o => name.startsWith(o))) return undefined;
	const reference = await startReference(await sample(url, spec), work);
	const results: Array<{ plaza: LoadResult; reference: LoadResult; ratio: number }> = [];
	try {
		for (let round = 0; round < rounds; round++) {
			const ref = await load(reference.url, spec, seconds);
			const mine = await load(url, spec, seconds);
			results.push({ plaza: mine, reference: ref, ratio: mine.rps / ref.rps });
		}
	} finally {
		reference.stop();
	}
	const chosen = results.find(r => r.ratio === median(results.map(x => x.ratio)))!;
	const row = {
		scenario: name,
		...chosen,
		note: [note, `ratios ${results.map(r => r.ratio.toFixed(3)).join("/")}`].filter(Boolean).join("; "),
	};
	rows.push(row);
	print(row);
	return row;
}

function print(row: Row): void {
	const p = row.plaza;
	console.log(
		`${row.scenario.padEnd(34)} ${p.rps.toFixed(0).padStart(7)} req/s  p50 ${String(p.p50).padStart(4)} ms  p99 ${String(p.p99).padStart(5)} ms  ref ${row.reference.rps.toFixed(0).padStart(6)}  ratio ${row.ratio.toFixed(3)}  errors ${p.errors + p.non2xx}${row.note ? `  (${row.note})` : ""}`,
	);
}

async function main(): Promise<void> {
	console.log(
		`Plaza benchmark: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${seconds}s per run, ${rounds} rounds, 50 connections`,
	);
	const dataDir = path.join(work, "embedded");
	const manifest = seed(work, { dir: dataDir }, users, posts);
	console.log(
		`seeded ${manifest.users} users and ${manifest.posts} posts in ${manifest.seconds.toFixed(1)} s (posts at ${manifest.postsPerSecond} posts/s)`,
	);

	// Embedded: every scenario.
	let plaza = await startBenchPlaza({ DATA_DIR: dataDir });
	let sessions = await signIn(plaza.url, manifest, 50);
	let s = scenarios(manifest, sessions);
	await compare("R1 AllUsers Limit=50", plaza.url, s.R1);
	await compare("R2 FindPost (10 comments)", plaza.url, s.R2);
	await compare("R3 search, common tag", plaza.url, s.R3common);
	await compare("R3 search, rare tag", plaza.url, s.R3rare);
	await compare("R4 UserFeed", plaza.url, s.R4);
	await compare("R3 search, common tag, page 2 (read every time)", plaza.url, s.R3page2);
	await compare("R4 UserFeed, page 2 (read every time)", plaza.url, s.R4page2);
	await compare("W1 CreatePost", plaza.url, s.W1);
	await compare("W2 CreateComment", plaza.url, s.W2);
	console.log(`embedded RSS after the run: ${plaza.rssMb()} MB`);
	await plaza.stop();

	if (args.postgres !== "off" && (!only || only.some(o => o.startsWith("R1") || o.startsWith("R2")))) {
		const database = testDatabase();
		await database.create();
		try {
			const pgManifest = seed(work, { "database-url": database.url }, users, posts);
			plaza = await startBenchPlaza({ DATABASE_URL: database.url });
			sessions = await signIn(plaza.url, pgManifest, 50);
			s = scenarios(pgManifest, sessions);
			await compare("R1 AllUsers Limit=50 (PostgreSQL)", plaza.url, s.R1);
			await compare("R2 FindPost (PostgreSQL)", plaza.url, s.R2);
			await plaza.stop();
		} finally {
			await database.drop();
		}
	}

	if (args.nats !== "off" && (!only || only.some(o => o.startsWith("D1")))) await distributed(dataDir, manifest);
	if (scale > 0 && (!only || only.some(o => o.startsWith("S1")))) await scaleScenario();
	console.log(`\n${rows.length} scenarios; data in ${work}`);
	fs.writeFileSync(path.join(work, "results.json"), JSON.stringify(rows, null, 2));
}

/** D1: the gateway (with users, graph, venues, systems) and posts in two processes over NATS. */
async function distributed(dataDir: string, manifest: SeedManifest): Promise<void> {
	const d1 = await startD1(dataDir);
	const plaza = d1.gateway;
	try {
		const sessions = await signIn(plaza.url, manifest, 50);
		const s = scenarios(manifest, sessions);
		await waitForPosts(plaza.url, sessions[0], manifest.postsWithComments[0]);
		await compare("D1 FindPost over NATS", plaza.url, s.R2);
		await compare("D1 CreatePost over NATS", plaza.url, s.W1);
		console.log(`D1 RSS: gateway ${plaza.rssMb()} MB, posts ${rssMbOf(d1.nodes.posts.child.pid!)} MB`);
	} finally {
		await d1.stop();
	}
}

async function waitForPosts(url: string, session: string, postId: string): Promise<void> {
	for (let i = 0; i < 300; i++) {
		if ((await fetch(`${url}/Posts/${postId}`, { headers: { "X-ss-id": session } })).status === 200) return;
		await new Promise(resolve => setTimeout(resolve, 100));
	}
	throw new Error("the posts node never answered");
}

/** S1: R2 and R3 at 10,000 and at `scale` posts: cold start to the first answer, RSS, throughput. */
async function scaleScenario(): Promise<void> {
	const figures: Array<{ posts: number; coldStartMs: number; rssMb: number; r2: Row; r3: Row }> = [];
	for (const count of [10_000, scale]) {
		const dir = path.join(work, `scale-${count}`);
		const manifest = seed(work, { dir }, Math.max(2000, Math.round(count / 100)), count);
		console.log(
			`S1: seeded ${count} posts in ${manifest.seconds.toFixed(1)} s (posts at ${manifest.postsPerSecond} posts/s)`,
		);
		const first = `/Posts/${manifest.postsWithComments[0]}`;
		// The first answer needs a session: sign-in is part of what a cold start must serve.
		const plaza: BenchPlaza = await startBenchPlaza({ DATA_DIR: dir }, "/health");
		const started = Date.now() - plaza.coldStartMs;
		const [firstSession] = await signIn(plaza.url, manifest, 1);
		const firstAnswer = await fetch(plaza.url + first, { headers: { "X-ss-id": firstSession } });
		const coldStartMs = Date.now() - started;
		const sessions = await signIn(plaza.url, manifest, 50);
		if (firstAnswer.status !== 200) throw new Error(`S1 first answer: ${firstAnswer.status}`);
		const s = scenarios(manifest, sessions);
		const r2 = (await compare(`S1 R2 FindPost at ${count}`, plaza.url, s.R2))!;
		const r3 = (await compare(`S1 R3 common tag at ${count}`, plaza.url, s.R3common))!;
		figures.push({ posts: count, coldStartMs, rssMb: plaza.rssMb(), r2, r3 });
		await plaza.stop();
	}
	for (const f of figures)
		console.log(
			`S1 at ${f.posts} posts: cold start ${f.coldStartMs} ms (to the first FindPost, one sign-in included), RSS ${f.rssMb} MB, R2 ${f.r2.plaza.rps.toFixed(0)} req/s, R3 ${f.r3.plaza.rps.toFixed(0)} req/s`,
		);
	if (figures.length === 2) {
		const [small, large] = figures;
		console.log(
			`S1 throughput at ${large.posts} vs ${small.posts}: R2 ×${(small.r2.plaza.rps / large.r2.plaza.rps).toFixed(2)} slower, R3 ×${(small.r3.plaza.rps / large.r3.plaza.rps).toFixed(2)} slower (bar: within 1.5)`,
		);
		// The same against the reference measured beside each: what the machine did meanwhile cancels out.
		console.log(
			`S1 ratio to the reference at ${large.posts} vs ${small.posts}: R2 ×${(small.r2.ratio / large.r2.ratio).toFixed(2)} lower, R3 ×${(small.r3.ratio / large.r3.ratio).toFixed(2)} lower`,
		);
	}
}

(args.workload === "social"
	? socialBenchmark(args, work)
	: args.workload
		? Promise.reject(new Error(`--workload ${args.workload}: social, or none for issue 12's scenarios`))
		: main()
).catch(err => {
	console.error(err);
	process.exit(1);
});
