import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchAdminKey, startBenchPlaza } from "./plaza-process";

/**
 * `npm run prove:soak -- --minutes N [--concurrency C]`: the embedded server (SQLite in a fresh
 * DATA_DIR) under mixed traffic (reads, writes, sign-ins, searches, feeds) for N minutes, with its
 * RSS sampled every 5 s and every request's latency. Prints RSS at start and end, and per minute the
 * requests, the failures (not 2xx, or no answer), p50, p99 and RSS. Exits 1 on any 5xx or lost request.
 */
function option(name: string, fallback: number): number {
	const at = process.argv.indexOf(`--${name}`);
	const value = at > 0 ? Number(process.argv[at + 1]) : fallback;
	if (!(value > 0)) throw new Error(`--${name} takes a positive number`);
	return value;
}

interface Sample {
	at: number;
	ms: number;
	status: number;
}

const percentile = (sorted: number[], p: number) =>
	sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;

async function main(): Promise<void> {
	const minutes = option("minutes", 3);
	const concurrency = option("concurrency", 16);
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-soak-"));
	const plaza = await startBenchPlaza({ DATA_DIR: dataDir, SIGNIN_MAX_FAILURES_PER_ADDRESS: "1000000" });
	const send = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
		const res = await fetch(plaza.url + route, {
			method,
			headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(15_000),
		});
		const text = await res.text();
		return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : {}) as Record<string, string> };
	};
	try {
		// The people of the soak: registered with real password hashes, each with a session and a first post.
		const people: Array<{ userName: string; userId: string; token: string; post: string }> = [];
		for (let i = 0; i < 20; i++) {
			const userName = `soak.${i}.${Date.now()}`;
			const reg = await send("POST", "/register", {
				UserName: userName,
				Password: "soak passphrase",
				FirstName: "Soak",
				LastName: `${i}`,
				AutoLogin: true,
			});
			const post = await send(
				"POST",
				"/Posts",
				{ AuthorId: reg.body.UserId, Content: `first of ${i}`, Tags: [`t${i % 5}`] },
				{ "X-ss-id": reg.body.SessionId },
			);
			people.push({ userName, userId: reg.body.UserId, token: reg.body.SessionId, post: post.body.Id });
		}
		for (let i = 1; i < people.length; i++)
			await send(
				"POST",
				"/Connections",
				{ OwnerId: people[i].userId, ConnectToId: people[i - 1].userId },
				{ Authorization: `Bearer ${benchAdminKey}` },
			);

		const mix: Array<(p: (typeof people)[number], n: number) => [string, string, unknown?]> = [
			p => ["GET", `/Posts/${p.post}`],
			p => ["GET", `/Users/${p.userId}`],
			p => ["GET", `/Users/${p.userId}/Feed`],
			(_, n) => ["GET", `/Search/Posts?TagNames=t${n % 5}`],
			(p, n) => ["POST", "/Posts", { AuthorId: p.userId, Content: `soak ${n}`, Tags: [`t${n % 5}`] }],
			(p, n) => ["POST", `/Posts/${p.post}/Comments`, { AuthorId: p.userId, Content: `comment ${n}` }],
			p => ["POST", "/auth/credentials", { UserName: p.userName, Password: "soak passphrase" }],
			p => ["GET", `/Posts/${p.post}/Comments`],
		];
		const started = Date.now();
		const deadline = started + minutes * 60_000;
		const samples: Sample[] = [];
		const rss: Array<{ at: number; mb: number }> = [{ at: 0, mb: plaza.rssMb() }];
		// The JavaScript heap apart from RSS: RSS swings with the password hashes in flight (128 MiB each at
		// OWASP's cost) and grows with the store's mmap'd files; a leak shows in the heap.
		const heap: Array<{ at: number; mb: number }> = [];
		const sampleHeap = async () => {
			const at = Date.now() - started;
			const text = await fetch(`${plaza.url}/metrics`, { headers: { Authorization: `Bearer ${benchAdminKey}` } }).then(
				r => r.text(),
				() => "",
			);
			const bytes = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(text)?.[1]);
			if (bytes) heap.push({ at, mb: Math.round(bytes / 2 ** 20) });
		};
		await sampleHeap();
		const sampler = setInterval(() => {
			rss.push({ at: Date.now() - started, mb: plaza.rssMb() });
			sampleHeap().catch(() => undefined);
		}, 5000);
		let n = 0;
		await Promise.all(
			Array.from({ length: concurrency }, async () => {
				while (Date.now() < deadline) {
					const i = n++;
					const person = people[i % people.length];
					const [method, route, body] = mix[i % mix.length](person, i);
					const sent = Date.now();
					const status = await send(method, route, body, { "X-ss-id": person.token }).then(
						r => r.status,
						() => 0,
					);
					samples.push({ at: sent - started, ms: Date.now() - sent, status });
				}
			}),
		);
		clearInterval(sampler);
		rss.push({ at: Date.now() - started, mb: plaza.rssMb() });
		await sampleHeap();

		console.log(
			`soak: ${minutes} min, ${concurrency} concurrent clients, ${samples.length} requests; RSS at start ${rss[0].mb} MB, at end ${rss[rss.length - 1].mb} MB, peak ${Math.max(...rss.map(r => r.mb))} MB; JS heap used at start ${heap[0]?.mb} MB, at end ${heap.at(-1)?.mb} MB`,
		);
		for (let m = 0; m < Math.ceil(minutes); m++) {
			const inMinute = samples.filter(s => s.at >= m * 60_000 && s.at < (m + 1) * 60_000);
			const ms = inMinute.map(s => s.ms).sort((a, b) => a - b);
			const failed = inMinute.filter(s => s.status < 200 || s.status >= 300).length;
			const rssThen = rss.filter(r => r.at < (m + 1) * 60_000).pop()?.mb;
			const heapInMinute = heap.filter(h => h.at >= m * 60_000 && h.at < (m + 1) * 60_000).map(h => h.mb);
			console.log(
				`minute ${m + 1}: ${inMinute.length} requests (${Math.round(inMinute.length / 60)}/s), ${failed} failed, p50 ${percentile(ms, 50)} ms, p99 ${percentile(ms, 99)} ms, RSS ${rssThen} MB, JS heap used ${heapInMinute.length ? `${Math.min(...heapInMinute)}–${Math.max(...heapInMinute)}` : "?"} MB`,
			);
		}
		const statuses: Record<number, number> = {};
		for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
		console.log(`statuses: ${JSON.stringify(statuses)}`);
		process.exitCode = samples.some(s => s.status === 0 || s.status >= 500) ? 1 : 0;
	} finally {
		await plaza.stop();
		fs.rmSync(dataDir, { recursive: true, force: true });
	}
}

main().catch(err => {
	console.error(err);
	process.exitCode = 2;
});
