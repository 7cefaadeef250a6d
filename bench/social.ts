import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { call } from "./api";
import { cpuPerRequest, CpuPerRequest, Measured, postgresBackends } from "./cpu";
import { load, RequestSpec, sample } from "./load";
import { formatStep, openLoopLadder, OpenRequest, passP99Ms } from "./open-loop";
import { startBenchPlaza, startCluster, startReference } from "./plaza-process";
import { between, random, sampleOf } from "./random";
import { describe, SocialGraph, socialGraph } from "./social-graph";
import { Community, mentionsOf, postBody, seedCommunity, TimelineRoute } from "./social-seed";
import { testDatabase } from "../test/support/postgres";

/**
 * `npm run bench -- --workload social`: DeathStarBench's social network on Plaza. A power-law
 * friendship graph is seeded through the API into a fresh Plaza of each store; then an open-loop
 * mix (60 % home-timeline pages, 30 % users' own timelines, 10 % posts with mentions and links) runs
 * at a ladder of rates, Poisson arrivals, latency from when each request was due; a step passes when
 * every answer is a 2xx and p99 ≤ 50 ms, and capacity is the highest rate that passed. Beside it, in
 * the same run: a raw node:http server answering a timeline page's bytes (the ratio's reference),
 * and each kind of request alone, closed loop, with the CPU it cost the Plaza processes.
 * Options: --store embedded|postgres|distributed (or a list; all three by default) --runs 1
 * --users 1000 --degree 40 --max-degree 300·users/1000 --posts-per-user 10 --seed 1
 * --rates 25,50,100,200,300,400,600,800 --step-seconds 10 --warmup-seconds 2 --seconds 4
 * --connections 50 --user-timeline posts|wall (wall: GET /Search/Posts?ContextId=, for a Plaza without UserPosts)
 * --profile (the embedded Plaza writes a V8 CPU profile into the run's folder).
 */

type Store = "embedded" | "postgres" | "distributed";
const stores: Store[] = ["embedded", "postgres", "distributed"];

/** A Plaza under test: its address, the processes whose CPU it costs, and how to take it down. */
interface Deployment {
	url: string;
	processes(): Promise<Measured[]>;
	/** What its processes printed (warnings and errors): shown when the run fails. */
	output(): string;
	stop(): Promise<void>;
}

/** What one kind of request alone did, closed loop. */
interface Alone {
	rps: number;
	p99: number;
	errors: number;
	/**
	 * µs of CPU per request: the Plaza processes together (nats-server included), PostgreSQL's backends, the load
	 * generator.
	 */
	plazaUs: number;
	postgresUs?: number;
	generatorUs: number;
}

interface RunResult {
	store: Store;
	run: number;
	capacity: number;
	referenceRps: number;
	alone: Record<AloneKind, Alone>;
}

interface Options {
	postsPerUser: number;
	seed: number;
	rates: number[];
	stepSeconds: number;
	warmupSeconds: number;
	/** Of each closed-loop measurement (the reference, each kind alone), after a second of warm-up. */
	seconds: number;
	connections: number;
	timeline: TimelineRoute;
	/** Write the embedded Plaza's V8 CPU profile into the run's folder. */
	profile: boolean;
}

type AloneKind = "feed" | "timeline" | "post6" | "post0";
const aloneNames: Record<AloneKind, string> = {
	feed: "home timeline",
	timeline: "user timeline",
	post6: "CreatePost, 6 mentions",
	post0: "CreatePost, no mention",
};

export async function socialBenchmark(args: Record<string, string>, work: string): Promise<void> {
	const users = Number(args.users ?? 1000);
	const timeline = args["user-timeline"] ?? "posts";
	if (timeline !== "posts" && timeline !== "wall") throw new Error(`--user-timeline ${timeline}: posts or wall`);
	const options: Options = {
		postsPerUser: Number(args["posts-per-user"] ?? 10),
		seed: Number(args.seed ?? 1),
		rates: (args.rates ?? "25,50,100,200,300,400,600,800").split(",").map(Number),
		stepSeconds: Number(args["step-seconds"] ?? 10),
		warmupSeconds: Number(args["warmup-seconds"] ?? 2),
		seconds: Number(args.seconds ?? 4),
		connections: Number(args.connections ?? 50),
		timeline,
		profile: args.profile !== undefined,
	};
	const chosen = (args.store ?? stores.join(",")).split(",") as Store[];
	const unknown = chosen.filter(s => !stores.includes(s));
	if (unknown.length) throw new Error(`--store ${unknown.join(",")}: one of ${stores.join(", ")}`);
	// The busiest user has about 300 friends among 1,000 users, and proportionally more in a larger community.
	const graph = socialGraph(
		users,
		Number(args.degree ?? 40),
		Number(args["max-degree"] ?? Math.round((300 * users) / 1000)),
		options.seed,
	);
	console.log(
		`Social network benchmark (DeathStarBench's mix): ${os.cpus().length} cores, Node ${process.version}; ${describe(graph)}; ${options.postsPerUser} posts each`,
	);
	const userTimeline = options.timeline === "posts" ? "GET /Users/{id}/Posts" : "GET /Search/Posts?ContextId=";
	console.log(
		`  mix: 60 % home timeline, 30 % user timeline (${userTimeline}), 10 % CreatePost with 1–6 mentions and 1–6 links`,
	);
	console.log(
		`  rates ${options.rates.join(", ")} req/s, ${options.stepSeconds} s a step after ${options.warmupSeconds} s of warm-up; pass: all 2xx and p99 ≤ ${passP99Ms} ms`,
	);
	const results: RunResult[] = [];
	for (let run = 1; run <= Number(args.runs ?? 1); run++)
		for (const store of chosen) {
			console.log(`\n${store}, run ${run}`);
			const deployment = await deploy(store, work, options.profile);
			try {
				const result = await measure(deployment, store, run, graph, options, work);
				results.push(result);
				console.log(
					`  ${store} run ${run}: capacity ${result.capacity} req/s, reference ${Math.round(result.referenceRps)} req/s, ratio ${(result.capacity / result.referenceRps).toFixed(4)}`,
				);
			} catch (err) {
				console.error(`${store} failed; the last of what Plaza printed:\n${deployment.output().slice(-4000)}`);
				throw err;
			} finally {
				await deployment.stop();
			}
		}
	printTable(results);
	fs.writeFileSync(path.join(work, "social-results.json"), JSON.stringify(results, null, 2));
	console.log(`\nresults in ${path.join(work, "social-results.json")}`);
}

async function measure(
	deployment: Deployment,
	store: Store,
	run: number,
	graph: SocialGraph,
	options: Options,
	work: string,
): Promise<RunResult> {
	const { url } = deployment;
	const rand = random(options.seed * 1_000_003 + run);
	console.log(`  seeding through the API at ${url}`);
	const community = await seedCommunity(url, graph, options.postsPerUser, rand, options.timeline);
	const requests = socialRequests(community, rand, options.timeline);
	await checkEachKind(url, community, requests, options.timeline);

	console.log(`  open loop, ${options.stepSeconds} s a step:`);
	const { capacity } = await openLoopLadder(
		url,
		() => requests.mixed(),
		rand,
		options.rates,
		options.stepSeconds,
		options.warmupSeconds,
		step => console.log(formatStep(step)),
	);

	const specs = aloneSpecs(community, requests, rand, options.connections);
	const reference = await startReference(await sample(url, specs.feed), work);
	let referenceRps: number;
	try {
		await load(reference.url, specs.feed, 1, options.connections);
		referenceRps = (await load(reference.url, specs.feed, options.seconds, options.connections)).rps;
	} finally {
		reference.stop();
	}
	console.log(
		`  reference (raw node:http answering a home-timeline page's bytes, ${options.connections} connections): ${Math.round(referenceRps)} req/s`,
	);

	const alone = {} as Record<AloneKind, Alone>;
	for (const kind of Object.keys(aloneNames) as AloneKind[]) {
		await load(url, specs[kind], 1, options.connections);
		alone[kind] = summarise(
			await cpuPerRequest(
				() => deployment.processes(),
				() => load(url, specs[kind], options.seconds, options.connections),
			),
		);
		const a = alone[kind];
		console.log(
			`  ${aloneNames[kind]} alone: ${Math.round(a.rps)} req/s, p99 ${a.p99} ms, errors ${a.errors}; CPU µs per request: Plaza ${a.plazaUs}${a.postgresUs === undefined ? "" : `, PostgreSQL ${a.postgresUs}`}, load generator ${a.generatorUs}`,
		);
	}
	return { store, run, capacity, referenceRps, alone };
}

function summarise(measured: CpuPerRequest): Alone {
	const sum = (groups: CpuPerRequest["groups"]) => groups.reduce((total, g) => total + g.user + g.system, 0);
	const postgres = measured.groups.filter(g => g.group === "postgres");
	return {
		rps: measured.result.rps,
		p99: measured.result.p99,
		errors: measured.result.errors + measured.result.non2xx,
		plazaUs: sum(measured.groups.filter(g => g.group !== "postgres")),
		postgresUs: postgres.length ? sum(postgres) : undefined,
		generatorUs: measured.loadGenerator,
	};
}

/** The requests of the workload, drawn with `rand`: each kind alone, and the mix. */
function socialRequests(community: Community, rand: () => number, timeline: TimelineRoute) {
	const anyone = () => Math.floor(rand() * community.ids.length);
	const offset = () => between(rand, 0, 100);
	const as = (user: number) => ({ "X-ss-id": community.sessions[user] });
	const feedPath = (me: number) => `/Users/${community.ids[me]}/Feed?Limit=10&Offset=${offset()}`;
	const timelinePath = () => {
		const someone = community.ids[anyone()];
		return timeline === "posts"
			? `/Users/${someone}/Posts?Limit=10&Offset=${offset()}`
			: `/Search/Posts?ContextId=${someone}&Limit=10&Offset=${offset()}`;
	};
	const post = (author: number, mentions: number) =>
		postBody(community, rand, author, mentionsOf(community, rand, author, mentions), between(rand, 1, 6), timeline);
	return {
		feedPath,
		timelinePath,
		post,
		/** One request of the mix: who sends it is drawn anew each time. */
		mixed(): OpenRequest {
			const draw = rand();
			const me = anyone();
			if (draw < 0.6) return { kind: "home", method: "GET", path: feedPath(me), headers: as(me) };
			if (draw < 0.9) return { kind: "user", method: "GET", path: timelinePath(), headers: as(me) };
			return {
				kind: "post",
				method: "POST",
				path: "/Posts",
				headers: as(me),
				body: JSON.stringify(post(me, between(rand, 1, 6))),
			};
		},
	};
}

/**
 * Each kind alone, for `load` (closed loop): each connection is one user, drawn once; CreatePost with 6 mentions from
 * users with 6 friends or more.
 */
function aloneSpecs(
	community: Community,
	requests: ReturnType<typeof socialRequests>,
	rand: () => number,
	connections: number,
): Record<AloneKind, RequestSpec> {
	const everyone = community.ids.map((_, i) => i);
	const readers = sampleOf(rand, everyone, connections);
	const sociable = sampleOf(
		rand,
		everyone.filter(u => community.graph.friends[u].length >= 6),
		connections,
	);
	const as = (users: number[]) => (connection: number) => ({
		"X-ss-id": community.sessions[users[connection % users.length]],
	});
	return {
		feed: { method: "GET", path: (_i, c) => requests.feedPath(readers[c % readers.length]), headers: as(readers) },
		timeline: { method: "GET", path: () => requests.timelinePath(), headers: as(readers) },
		post6: {
			method: "POST",
			path: () => "/Posts",
			body: (_i, c) => requests.post(sociable[c % sociable.length], 6),
			headers: as(sociable),
		},
		post0: {
			method: "POST",
			path: () => "/Posts",
			body: (_i, c) => requests.post(readers[c % readers.length], 0),
			headers: as(readers),
		},
	};
}

/**
 * One request of each kind before the load: a route this Plaza lacks fails here, with what to do, not as a ladder of
 * errors.
 */
async function checkEachKind(
	url: string,
	community: Community,
	requests: ReturnType<typeof socialRequests>,
	timeline: TimelineRoute,
): Promise<void> {
	const me = 0;
	const headers = { "X-ss-id": community.sessions[me] };
	await call(url, "GET", requests.feedPath(me), undefined, headers);
	const path = requests.timelinePath();
	await call(url, "GET", path, undefined, headers).catch((err: Error) => {
		const hint =
			timeline === "posts" && / 404 /.test(err.message)
				? " (this Plaza has no UserPosts route: run with --user-timeline wall)"
				: "";
		throw new Error(`${err.message}${hint}`);
	});
	await call(url, "POST", "/Posts", requests.post(me, 6), headers);
}

/** Starts a fresh Plaza of `store`: a temporary data folder or a database of its own, taken down by stop(). */
async function deploy(store: Store, work: string, profile: boolean): Promise<Deployment> {
	// Sign-ups hash at the test suites' cost: the benchmark is about timelines, not scrypt.
	const common = { PASSWORD_HASH_COST: "test" };
	if (store === "embedded") {
		const dir = fs.mkdtempSync(path.join(work, "social-"));
		const profiled: Record<string, string> = profile
			? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(work, "profile")}` }
			: {};
		const plaza = await startBenchPlaza({ ...common, DATA_DIR: dir, ...profiled });
		return {
			url: plaza.url,
			processes: async () => [{ group: "plaza", pid: plaza.proc.child.pid! }],
			output: () => plaza.proc.output(),
			stop: async () => {
				await plaza.stop();
				fs.rmSync(dir, { recursive: true, force: true });
			},
		};
	}
	const database = testDatabase();
	await database.create();
	try {
		if (store === "postgres") {
			const plaza = await startBenchPlaza({ ...common, DATABASE_URL: database.url });
			return {
				url: plaza.url,
				processes: async () => [
					{ group: "plaza", pid: plaza.proc.child.pid! },
					...(await postgresBackends(database.name)),
				],
				output: () => plaza.proc.output(),
				stop: async () => {
					await plaza.stop();
					await database.drop();
				},
			};
		}
		// Three processes: the gateway, posts, and the other domains, as the distributed mode deploys them at its smallest.
		const cluster = await startCluster({ ...common, DATABASE_URL: database.url }, "gateway", {
			posts: "posts",
			domains: "users,graph,venues,systems",
		});
		return {
			url: cluster.gateway.url,
			processes: async () => [
				...Object.entries(cluster.pids()).map(([group, pid]) => ({ group, pid })),
				...(await postgresBackends(database.name)),
			],
			output: () =>
				[["gateway", cluster.gateway.proc] as const, ...Object.entries(cluster.nodes)]
					.map(([name, node]) => `${name}:\n${node.output().slice(-2000)}`)
					.join("\n"),
			stop: async () => {
				await cluster.stop();
				await database.drop();
			},
		};
	} catch (err) {
		await database.drop();
		throw err;
	}
}

/** The runs side by side: capacity, its ratio to the reference, and each kind alone (req/s, µs of CPU per request). */
function printTable(results: RunResult[]): void {
	const alone = (a: Alone) =>
		`${Math.round(a.rps)}/s ${a.plazaUs}${a.postgresUs === undefined ? "" : `+${a.postgresUs}pg`} µs`;
	const rows = [
		[
			"store",
			"run",
			"capacity req/s",
			"ratio to reference",
			"home timeline alone",
			"user timeline alone",
			"CreatePost(6 mentions)",
			"CreatePost(0)",
		],
		...results.map(r => [
			r.store,
			String(r.run),
			String(r.capacity),
			`${(r.capacity / r.referenceRps).toFixed(4)} (ref ${Math.round(r.referenceRps)})`,
			alone(r.alone.feed),
			alone(r.alone.timeline),
			alone(r.alone.post6),
			alone(r.alone.post0),
		]),
	];
	const widths = rows[0].map((_, c) => Math.max(...rows.map(row => row[c].length)));
	console.log(
		"\nAlone: closed loop; µs = CPU per request of the Plaza processes together (+pg: PostgreSQL's backends; the load generator's apart)",
	);
	for (const row of rows) {
		const line = row.map((cell, c) => cell.padEnd(widths[c])).join(" | ");
		console.log(line.trimEnd());
	}
	// Over several runs, each store's spread: the machine's noise is larger than most changes.
	const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
	for (const store of stores) {
		const runs = results.filter(r => r.store === store);
		if (runs.length < 2) continue;
		const ratios = runs.map(r => r.capacity / r.referenceRps);
		console.log(
			`${store}: capacity ${runs.map(r => r.capacity).join(", ")} req/s (median ${median(runs.map(r => r.capacity))}), ratio ${ratios.map(r => r.toFixed(4)).join(", ")} (median ${median(ratios).toFixed(4)})`,
		);
	}
}
