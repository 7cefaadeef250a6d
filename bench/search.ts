import { AddressInfo } from "node:net";
import { Server } from "node:http";
import { createPlaza } from "../plaza";
import { defaultConfig } from "../shared/config";
import { StoreAdapter } from "../shared/persistence/store";
import { newGuid } from "../shared/wire/guid";

/**
 * SearchPostsByTag against a growing collection: the time of a search for a tag that 100 posts have
 * should stay flat from 10k to 200k posts, because the TagNames index picks the candidates.
 * Usage: npm run bench:search [-- sizes...]   (default 10000 50000 200000)
 */
const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const steps = sizes.length ? sizes : [10_000, 50_000, 200_000];
const rareCount = 100;
const searches = 200;

async function main(): Promise<void> {
	const adminKey = "bench-admin-key";
	const broker = createPlaza(defaultConfig({ adminApiKey: adminKey, rateLimitPerMinute: 10_000_000 }));
	await broker.start();
	const server = (broker.getLocalService("gateway") as unknown as { server: Server }).server;
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const posts = (broker.getLocalService("posts") as unknown as { stores: { posts: StoreAdapter } }).stores.posts;
	const authorId = newGuid();

	const insert = async (count: number, tag: (i: number) => string) => {
		for (let i = 0; i < count; i++) {
			const now = Date.now();
			await posts.insert({
				_id: newGuid(), AuthorId: authorId, Content: `post ${i}`, IsPrivate: i % 5 === 0, AuthorType: "User", Recipients: [], Audience: [],
				Tags: [], TagNames: [tag(i), "common"], Activities: [], ExpiresAt: Number.MAX_SAFE_INTEGER, CreatedTime: now, UpdatedTime: now,
			});
		}
	};
	await insert(rareCount, () => "rare");

	console.log(`SearchPostsByTag: a tag on ${rareCount} posts, among more and more posts (embedded store, Node ${process.version})`);
	let size = rareCount;
	let baseline: number | undefined;
	for (const target of steps) {
		await insert(target - size, i => `tag${i % 1000}`);
		size = target;
		const started = process.hrtime.bigint();
		for (let i = 0; i < searches; i++) {
			const res = await fetch(`${base}/Search/Posts?TagNames=rare&Limit=20&Offset=${i % 5}`, { headers: { Authorization: `Bearer ${adminKey}` } });
			if (res.status !== 200) throw new Error(`search failed: ${res.status} ${await res.text()}`);
			await res.arrayBuffer();
		}
		const perSearch = Number(process.hrtime.bigint() - started) / 1e6 / searches;
		baseline ??= perSearch;
		console.log(`${String(size).padStart(8)} posts: ${perSearch.toFixed(2)} ms per search  x${(perSearch / baseline).toFixed(2)}`);
	}
	await broker.stop();
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
