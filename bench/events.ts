import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { benchAdminKey, cpuShareOf, startBenchPlaza, BenchPlaza, startReference, startService } from "./plaza-process";
import { load, LoadResult, RequestSpec, sample } from "./load";
import { parseArgs } from "./manifest";
import { call, each, untilAnswered } from "./api";
import { freePort } from "../test/support/process";
import { TestNats } from "../test/support/nats";

/**
 * `npm run bench:events [-- --streams 5000 --followers 1000 --runs 3]`: Server Events on one
 * embedded gateway (dist/main.js, in-memory store). Per run: the gateway's RSS idle (users signed
 * up), then with every stream open (each signed in as its own user, heartbeating as
 * ServerEventsClient does); then three posts by an author whom `followers` of those users follow,
 * and the time from the POST to each follower's stream receiving its cmd.Post (p50, p99, max).
 * Then REST scenarios of `npm run bench` (R2 FindPost, R4 UserFeed, W1 CreatePost) as ratios to a
 * raw node:http server, in the order without, with, with, without (ABBA: the store grows with every
 * W1 and the machine drifts, and both cancel out of the two means), the streams open and
 * heartbeating in the middle two and all closed again before the last.
 * `--distributed`: two gateways, a posts node and a node of the other domains over a
 * nats-server; `--readers` (200) streams on gateway B follow an author who posts through gateway A
 * at `--rate` posts/s (10) for `--posts` posts (100): the delivery delay, POST sent to frame read.
 */
const args = parseArgs(process.argv.slice(2));
const streamCount = Number(args.streams ?? 5000);
const followerCount = Math.min(Number(args.followers ?? 1000), streamCount);
const runs = Number(args.runs ?? 3);
const restSeconds = Number(args.seconds ?? 4);

interface OpenStream {
	received: Map<string, number>;
	subscriptionId: string;
	req: http.ClientRequest;
}

/**
 * Opens a stream (its own socket, as a browser's EventSource has), resolving at cmd.onConnect; notes when each post id
 * arrives.
 */
function openStream(base: string, token: string): Promise<OpenStream> {
	return new Promise((resolve, reject) => {
		const received = new Map<string, number>();
		let buffered = "";
		let connected = false;
		const req = http.get(
			`${base}/event-stream?channels=home`,
			{ headers: { "X-ss-id": token, Accept: "text/event-stream" } },
			res => {
				if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => {
					const at = performance.now();
					buffered += chunk;
					let end: number;
					while ((end = buffered.indexOf("\n\n")) >= 0) {
						const frame = buffered.slice(0, end);
						buffered = buffered.slice(end + 2);
						const data =
							frame
								.split("\n")
								.find(line => line.startsWith("data: "))
								?.slice(6) ?? "";
						if (data.startsWith("cmd.Post "))
							received.set(String((JSON.parse(data.slice(9)) as { Id: string }).Id), at);
						else if (!connected && data.startsWith("cmd.onConnect ")) {
							connected = true;
							resolve({ received, subscriptionId: String((JSON.parse(data.slice(14)) as { id: string }).id), req });
						}
					}
				});
			},
		);
		req.on("error", err => (connected ? undefined : reject(err)));
	});
}

const signed = (factor: number) => `${factor >= 1 ? "+" : ""}${(100 * (factor - 1)).toFixed(1)} %`;
const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function run(index: number): Promise<void> {
	const plaza: BenchPlaza = await startBenchPlaza({
		DATA_DIR: ":memory:",
		PASSWORD_HASH_COST: "test",
		LOG_LEVEL: "error",
	});
	try {
		const base = plaza.url;
		const author = await call(base, "POST", "/register", {
			UserName: `author${Date.now()}`,
			Password: "bench password",
			FirstName: "Author",
			LastName: "Bench",
			AutoLogin: true,
		});
		const authorHeaders = { "X-ss-id": String(author.SessionId) };
		const tokens: string[] = new Array<string>(streamCount);
		await each(streamCount, 16, async i => {
			const user = await call(base, "POST", "/register", {
				UserName: `reader${i}x${Date.now()}`,
				Password: "bench password",
				FirstName: "Reader",
				LastName: "Bench",
				AutoLogin: true,
			});
			tokens[i] = String(user.SessionId);
			if (i < followerCount)
				await call(
					base,
					"POST",
					"/Subscriptions",
					{ SubscriberId: user.UserId, SubscribedToId: author.UserId },
					{ "X-ss-id": tokens[i] },
				);
		});
		const seedPost = await call(
			base,
			"POST",
			"/Posts",
			{ AuthorId: author.UserId, Content: "kept by the gateway" },
			authorHeaders,
		);
		const rest = restScenarios(
			String(seedPost.Id),
			tokens.slice(followerCount - 50, followerCount),
			await userIdsOf(base, tokens.slice(followerCount - 50, followerCount)),
		);
		// Warmed first (compiled, caches filled), so that "without" is not also "cold".
		for (const spec of Object.values(rest)) await load(base, spec, 2);
		const restBefore = await measureRest(base, rest);
		global.gc?.();
		await new Promise(resolve => setTimeout(resolve, 2_000));
		const idleRss = plaza.rssMb();
		const idleCpu = await cpuShareOf(plaza.proc.child.pid!, 5_000);
		const streams: OpenStream[] = new Array<OpenStream>(streamCount);
		const opening = Date.now();
		await each(streamCount, 64, async i => {
			streams[i] = await openStream(base, tokens[i]);
		});
		const openMs = Date.now() - opening;
		// Heartbeats as ServerEventsClient sends them (every 10 s per stream, so that none is ended as idle
		// at 30 s), spread over the interval as clients that connected at different moments send them.
		let beat = 0;
		const heartbeats = setInterval(() => {
			const slice = streamCount / 100;
			for (const s of streams.slice(Math.round((beat % 100) * slice), Math.round(((beat % 100) + 1) * slice)))
				void fetch(`${base}/event-heartbeat?id=${s.subscriptionId}`, { method: "POST" }).then(
					r => r.text(),
					() => undefined,
				);
			beat++;
		}, 100);
		await new Promise(resolve => setTimeout(resolve, 3_000));
		const openRss = plaza.rssMb();
		// What the open streams cost the gateway in time, without the noise of a load beside them.
		const openCpu = await cpuShareOf(plaza.proc.child.pid!, 5_000);
		const fanOuts: string[] = [];
		for (let round = 0; round < 3; round++) {
			const sent = performance.now();
			const post = await call(
				base,
				"POST",
				"/Posts",
				{ AuthorId: author.UserId, Content: `fan-out ${round}` },
				authorHeaders,
			);
			const answeredMs = performance.now() - sent;
			const id = String(post.Id);
			const deadline = Date.now() + 10_000;
			while (streams.slice(0, followerCount).some(s => !s.received.has(id)) && Date.now() < deadline)
				await new Promise(resolve => setTimeout(resolve, 5));
			const delays = streams
				.slice(0, followerCount)
				.map(s => s.received.get(id))
				.filter((at): at is number => at !== undefined)
				.map(at => at - sent)
				.sort((x, y) => x - y);
			const others = streams.slice(followerCount).filter(s => s.received.has(id)).length;
			fanOuts.push(
				`post ${round + 1}: ${delays.length}/${followerCount} followers in p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${delays.at(-1)?.toFixed(1)} ms, first-to-last ${((delays.at(-1) ?? 0) - delays[0]).toFixed(1)} ms; the POST answered in ${answeredMs.toFixed(1)} ms (${others} non-followers got it)`,
			);
			await new Promise(resolve => setTimeout(resolve, 1_000));
		}
		const restWith = [await measureRest(base, rest), await measureRest(base, rest)];
		clearInterval(heartbeats);
		for (const s of streams) s.req.destroy();
		const stillOpen = await untilClosed(base);
		const restAfter = await measureRest(base, rest);
		console.log(
			`run ${index}: ${streamCount} streams opened in ${openMs} ms; RSS idle ${idleRss} MB, with streams ${openRss} MB (+${openRss - idleRss} MB)`,
		);
		console.log(
			`  the gateway's CPU, no request but heartbeats: ${idleCpu.toFixed(1)} % of a core idle, ${openCpu.toFixed(1)} % with the streams open`,
		);
		for (const line of fanOuts) console.log(`  ${line}`);
		if (stillOpen > 0)
			console.log(`  ${stillOpen} streams were still open at the gateway during the last "without" block`);
		for (const name of Object.keys(rest)) {
			const without = [restBefore[name], restAfter[name]];
			const within = restWith.map(block => block[name]);
			const mean = (rows: Array<{ ratio: number }>) => (rows[0].ratio + rows[1].ratio) / 2;
			const meanRps = (rows: Array<{ plaza: LoadResult }>) => (rows[0].plaza.rps + rows[1].plaza.rps) / 2;
			const rates = (rows: Array<{ plaza: LoadResult }>) => rows.map(r => r.plaza.rps.toFixed(0)).join(", ");
			const ratios = (rows: Array<{ ratio: number }>) => rows.map(r => r.ratio.toFixed(3)).join(", ");
			console.log(
				`  ${name}: without streams ${rates(without)} req/s (ratios ${ratios(without)}, p99 ${without.map(r => r.plaza.p99).join(", ")} ms), with ${streamCount} open ${rates(within)} req/s (ratios ${ratios(within)}, p99 ${within.map(r => r.plaza.p99).join(", ")} ms): mean ratio ${signed(mean(within) / mean(without))}, mean req/s ${signed(meanRps(within) / meanRps(without))} with streams (bar: within 10 %)`,
			);
		}
	} finally {
		await plaza.stop();
	}
}

/** Each reader's user id, from their session. */
async function userIdsOf(base: string, tokens: string[]): Promise<string[]> {
	return Promise.all(
		tokens.map(async token => String((await call(base, "GET", "/auth", undefined, { "X-ss-id": token })).UserId)),
	);
}

/** R2, R4 and W1 as `npm run bench` sends them, by 50 signed-in readers. */
function restScenarios(postId: string, tokens: string[], userIds: string[]): Record<string, RequestSpec> {
	const as = (connection: number) => ({ "X-ss-id": tokens[connection % tokens.length] });
	const userOf = (connection: number) => userIds[connection % userIds.length];
	return {
		"R2 FindPost": { method: "GET", path: () => `/Posts/${postId}`, headers: as },
		"R4 UserFeed": { method: "GET", path: (_i, c) => `/Users/${userOf(c)}/Feed?Limit=20`, headers: as },
		"W1 CreatePost": {
			method: "POST",
			path: () => "/Posts",
			body: (i, c) => ({ AuthorId: userOf(c), Content: `Benchmark post ${i}`, Tags: ["bench", `t${i % 100}`] }),
			headers: as,
		},
	};
}

/** Each scenario against a reference answering Plaza's bytes, reference first: Plaza's rate as a ratio. */
async function measureRest(
	base: string,
	scenarios: Record<string, RequestSpec>,
): Promise<Record<string, { plaza: LoadResult; ratio: number }>> {
	const results: Record<string, { plaza: LoadResult; ratio: number }> = {};
	for (const [name, spec] of Object.entries(scenarios)) {
		const reference = await startReference(await sample(base, spec), os.tmpdir());
		try {
			const ref = await load(reference.url, spec, restSeconds);
			const plaza = await load(base, spec, restSeconds);
			results[name] = { plaza, ratio: plaza.rps / ref.rps };
		} finally {
			reference.stop();
		}
	}
	return results;
}

/** Two gateways over NATS: an author posting through A, readers' streams on B. */
async function distributed(index: number): Promise<void> {
	const readerCount = Number(args.readers ?? 200);
	const postCount = Number(args.posts ?? 100);
	const rate = Number(args.rate ?? 10);
	const nats = await TestNats.start();
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-events-"));
	const common = {
		TRANSPORTER: nats.url,
		CLUSTER_SECRET: "bench-cluster-secret-0123456789abcdef",
		DATA_DIR: dataDir,
		PASSWORD_HASH_COST: "test",
		LOG_LEVEL: "error",
	};
	const nodes = [
		startService({ ...common, SERVICES: "users,graph,venues,systems", NODE_ID: "bench-domains" }),
		startService({ ...common, SERVICES: "posts", NODE_ID: "bench-posts" }),
	];
	const gateways: BenchPlaza[] = [];
	try {
		for (const name of ["a", "b"])
			gateways.push(
				await startBenchPlaza(
					{ ...common, SERVICES: "gateway", PORT: String(await freePort()), NODE_ID: `bench-gateway-${name}` },
					"/ready",
				),
			);
		const [a, b] = gateways.map(g => g.url);
		const author = await untilAnswered(() =>
			call(a, "POST", "/register", {
				UserName: `author${Date.now()}`,
				Password: "bench password",
				FirstName: "Author",
				LastName: "Bench",
				AutoLogin: true,
			}),
		);
		for (const gateway of [a, b])
			await untilAnswered(() =>
				call(gateway, "GET", "/Search/Posts", undefined, { "X-ss-id": String(author.SessionId) }),
			);
		const tokens: string[] = new Array<string>(readerCount);
		await each(readerCount, 8, async i => {
			const user = await call(b, "POST", "/register", {
				UserName: `reader${i}x${Date.now()}`,
				Password: "bench password",
				FirstName: "Reader",
				LastName: "Bench",
				AutoLogin: true,
			});
			tokens[i] = String(user.SessionId);
			await call(
				b,
				"POST",
				"/Subscriptions",
				{ SubscriberId: user.UserId, SubscribedToId: author.UserId },
				{ "X-ss-id": tokens[i] },
			);
		});
		const streams: OpenStream[] = [];
		await each(readerCount, 32, async i => {
			streams[i] = await openStream(b, tokens[i]);
		});
		const delays: number[] = [];
		let missing = 0;
		const sent = new Map<string, number>();
		for (let n = 0; n < postCount; n++) {
			const at = performance.now();
			const post = await call(
				a,
				"POST",
				"/Posts",
				{ AuthorId: author.UserId, Content: `across gateways ${n}` },
				{ "X-ss-id": String(author.SessionId) },
			);
			sent.set(String(post.Id), at);
			await new Promise(resolve => setTimeout(resolve, Math.max(0, 1000 / rate - (performance.now() - at))));
		}
		await new Promise(resolve => setTimeout(resolve, 2_000));
		for (const [id, at] of sent)
			for (const s of streams) {
				const got = s.received.get(id);
				if (got === undefined) missing++;
				else delays.push(got - at);
			}
		delays.sort((x, y) => x - y);
		console.log(
			`distributed run ${index}: ${postCount} posts at ${rate}/s through gateway A to ${readerCount} streams on gateway B: ${delays.length} deliveries, ${missing} missing; p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${delays.at(-1)?.toFixed(1)} ms (bar: p99 ≤ 150 ms)`,
		);
		for (const s of streams) s.req.destroy();
	} finally {
		for (const g of gateways) await g.stop();
		for (const node of nodes) {
			node.child.kill("SIGTERM");
			await node.exited;
		}
		await nats.stop();
		fs.rmSync(dataDir, { recursive: true, force: true });
	}
}

/** Waits (up to 10 s) until the gateway has let go of every stream; how many it still holds. */
async function untilClosed(base: string): Promise<number> {
	let open = 0;
	for (let i = 0; i < 100; i++) {
		const res = await fetch(`${base}/event-subscribers`, { headers: { Authorization: `Bearer ${benchAdminKey}` } });
		open = ((await res.json()) as unknown[]).length;
		if (open === 0) break;
		await new Promise(resolve => setTimeout(resolve, 100));
	}
	return open;
}

async function main(): Promise<void> {
	for (let i = 1; i <= runs; i++) await (args.distributed === "true" ? distributed(i) : run(i));
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
