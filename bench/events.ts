import http from "node:http";
import { startBenchPlaza, BenchPlaza } from "./plaza-process";

/**
 * `npm run bench:events [-- --streams 5000 --followers 1000 --runs 3]`: Server Events on one
 * embedded gateway (dist/main.js, in-memory store). Per run: the gateway's RSS idle (users signed
 * up), then with every stream open (each signed in as its own user, heartbeating as
 * ServerEventsClient does); then three posts by an author whom `followers` of those users follow,
 * and the time from the POST to each follower's stream receiving its cmd.Post (p50, p99, max).
 */
const args = Object.fromEntries(process.argv.slice(2).flatMap((arg, i, all) => (arg.startsWith("--") ? [[arg.slice(2), all[i + 1]]] : [])));
const streamCount = Number(args.streams ?? 5000);
const followerCount = Math.min(Number(args.followers ?? 1000), streamCount);
const runs = Number(args.runs ?? 3);

interface OpenStream {
	received: Map<string, number>;
	subscriptionId: string;
	req: http.ClientRequest;
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
	const res = await fetch(base + path, { method, headers: { "Content-Type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await res.text();
	if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
	return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function each(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) await work(next++);
		}),
	);
}

/** Opens a stream (its own socket, as a browser's EventSource has), resolving at cmd.onConnect; notes when each post id arrives. */
function openStream(base: string, token: string): Promise<OpenStream> {
	return new Promise((resolve, reject) => {
		const received = new Map<string, number>();
		let buffered = "";
		let connected = false;
		const req = http.get(`${base}/event-stream?channels=home`, { headers: { "X-ss-id": token, Accept: "text/event-stream" } }, res => {
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
					if (data.startsWith("cmd.Post ")) received.set(String((JSON.parse(data.slice(9)) as { Id: string }).Id), at);
					else if (!connected && data.startsWith("cmd.onConnect ")) {
						connected = true;
						resolve({ received, subscriptionId: String((JSON.parse(data.slice(14)) as { id: string }).id), req });
					}
				}
			});
		});
		req.on("error", err => (connected ? undefined : reject(err)));
	});
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function run(index: number): Promise<void> {
	const plaza: BenchPlaza = await startBenchPlaza({ DATA_DIR: ":memory:", PASSWORD_HASH_COST: "test", LOG_LEVEL: "error" });
	try {
		const base = plaza.url;
		const author = await call(base, "POST", "/register", { UserName: `author${Date.now()}`, Password: "bench password", FirstName: "Author", LastName: "Bench", AutoLogin: true });
		const authorHeaders = { "X-ss-id": String(author.SessionId) };
		const tokens: string[] = new Array<string>(streamCount);
		await each(streamCount, 16, async i => {
			const user = await call(base, "POST", "/register", { UserName: `reader${i}x${Date.now()}`, Password: "bench password", FirstName: "Reader", LastName: "Bench", AutoLogin: true });
			tokens[i] = String(user.SessionId);
			if (i < followerCount) await call(base, "POST", "/Subscriptions", { SubscriberId: user.UserId, SubscribedToId: author.UserId }, { "X-ss-id": tokens[i] });
		});
		global.gc?.();
		await new Promise(resolve => setTimeout(resolve, 2_000));
		const idleRss = plaza.rssMb();
		const streams: OpenStream[] = new Array<OpenStream>(streamCount);
		const opening = Date.now();
		await each(streamCount, 64, async i => {
			streams[i] = await openStream(base, tokens[i]);
		});
		const openMs = Date.now() - opening;
		// Heartbeats as ServerEventsClient sends them, so that no stream is ended as idle (30 s).
		const heartbeats = setInterval(() => {
			for (const s of streams)
				void fetch(`${base}/event-heartbeat?id=${s.subscriptionId}`, { method: "POST" }).then(
					r => r.text(),
					() => undefined,
				);
		}, 10_000);
		await new Promise(resolve => setTimeout(resolve, 3_000));
		const openRss = plaza.rssMb();
		const fanOuts: string[] = [];
		for (let round = 0; round < 3; round++) {
			const sent = performance.now();
			const post = await call(base, "POST", "/Posts", { AuthorId: author.UserId, Content: `fan-out ${round}` }, authorHeaders);
			const answeredMs = performance.now() - sent;
			const id = String(post.Id);
			const deadline = Date.now() + 10_000;
			while (streams.slice(0, followerCount).some(s => !s.received.has(id)) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 5));
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
		clearInterval(heartbeats);
		console.log(`run ${index}: ${streamCount} streams opened in ${openMs} ms; RSS idle ${idleRss} MB, with streams ${openRss} MB (+${openRss - idleRss} MB)`);
		for (const line of fanOuts) console.log(`  ${line}`);
		for (const s of streams) s.req.destroy();
	} finally {
		await plaza.stop();
	}
}

async function main(): Promise<void> {
	for (let i = 1; i <= runs; i++) await run(i);
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
