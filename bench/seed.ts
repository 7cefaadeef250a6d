import fs from "node:fs";
import path from "node:path";
import { SqlDatabase } from "../shared/persistence/sql/database";
import { Migration, migrate } from "../shared/persistence/sql/migrations";
import { PostgresDatabase } from "../shared/persistence/sql/postgres";
import { SqliteDatabase } from "../shared/persistence/sql/sqlite";
import { hashPassword } from "../shared/passwords";
import { newGuid, newOrderedGuid } from "../shared/wire/guid";
import { UsersRepository } from "../services/users/users.repository";
import { usersMigrations } from "../services/users/users.schema";
import { GraphRepository } from "../services/graph/graph.repository";
import { graphMigrations } from "../services/graph/graph.schema";
import { PostsRepository } from "../services/posts/posts.repository";
import { postsMigrations } from "../services/posts/posts.schema";
import { NewRecipient, newTagRows, PostRow } from "../services/posts/posts.rows";
import { parseArgs, SeedManifest } from "./manifest";
import { each } from "./api";
import { random } from "./random";

/**
 * `npm run seed -- --users U --posts P [--dir DATA_DIR | --database-url postgres://…]`: a realistic
 * community written straight through the repositories (users with connections, networks and
 * subscriptions; posts with tags, recipients and comments), deterministic for a given size. Every
 * user's password is "seed password"; the manifest (seed-manifest.json beside the data, or --manifest)
 * names what the benchmark aims at.
 */
const password = "seed password";
const commonTag = "news";
const rareTag = "aurora";

async function open(args: Record<string, string>): Promise<{
	databases: Record<"users" | "graph" | "posts", SqlDatabase>;
	close: () => Promise<void>;
	manifestFile: string;
}> {
	const domains: Array<["users" | "graph" | "posts", Migration[]]> = [
		["users", usersMigrations],
		["graph", graphMigrations],
		["posts", postsMigrations],
	];
	let databases: Record<string, SqlDatabase>;
	let manifestFile = args.manifest;
	if (args["database-url"]) {
		const db = new PostgresDatabase(args["database-url"]);
		databases = { users: db, graph: db, posts: db };
		manifestFile ??= "seed-manifest.json";
	} else {
		const dir = path.resolve(args.dir ?? process.env.DATA_DIR ?? "./data");
		databases = Object.fromEntries(
			domains.map(([name]) => [name, new SqliteDatabase(path.join(dir, `${name}.sqlite`), { bulkLoad: true })]),
		);
		manifestFile ??= path.join(dir, "seed-manifest.json");
	}
	for (const [name, migrations] of domains) await migrate(databases[name], name, migrations);
	return {
		databases,
		manifestFile,
		close: async () => void (await Promise.all([...new Set(Object.values(databases))].map(db => db.close()))),
	};
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const userCount = Number(args.users ?? 2000);
	const postCount = Number(args.posts ?? 13000);
	const { databases, close, manifestFile } = await open(args);
	const concurrency = args["database-url"] ? 8 : 1;
	const started = Date.now();
	const rand = random(userCount * 31 + postCount);
	const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
	const base = Date.now() - 30 * 24 * 3600 * 1000;

	const users = new UsersRepository(databases.users);
	const hash = await hashPassword(password);
	const userIds = Array.from({ length: userCount }, () => newGuid());
	await each(userCount, concurrency, i =>
		users.create({
			Id: userIds[i],
			UserName: `seed_user_${i}`,
			Email: `seed${i}@example.org`,
			FirstName: `First${i}`,
			LastName: `Last${i}`,
			JobTitle: pick(["Engineer", "Designer", "Editor", "Teacher"]),
			PasswordHash: hash,
			CreatedTime: base + i,
			UpdatedTime: base + i,
		}),
	);

	// Ten connections per user on average (five pairs begun by each), networks of about thirty, three subscriptions each.
	const graph = new GraphRepository(databases.graph);
	await each(userCount, concurrency, async i => {
		for (let k = 1; k <= 5; k++)
			await graph.connections.connect(userIds[i], userIds[(i + k * 7) % userCount], k === 1, base + i);
	});
	const networks: string[] = [];
	for (let n = 0; n < Math.max(10, Math.round(userCount / 40)); n++) {
		const network = await graph.networks.create(`Network ${n}`, userIds[(n * 13) % userCount], base + n);
		networks.push(network.Id);
		for (let m = 0; m < 30; m++) await graph.networks.addMember(network.Id, pick(userIds), base + n + m);
	}
	await each(userCount, concurrency, async i => {
		for (let k = 0; k < 3; k++)
			await graph.subscriptions.add(
				{ SubscriberId: userIds[i], SubscribedToId: userIds[(i + 100 + k * 31) % userCount] },
				base + i,
			);
	});

	// Posts: a fifth tagged with the common tag, one in ten thousand with the rare one, a tenth private; one in a hundred
	// with ten comments.
	const posts = new PostsRepository(databases.posts);
	const postsStarted = Date.now();
	const postsWithComments: string[] = [];
	const step = Math.max(1, Math.floor((30 * 24 * 3600 * 1000) / Math.max(1, postCount)));
	await each(postCount, concurrency, async i => {
		const now = base + i * step;
		const authorId = userIds[Math.floor(rand() * userCount)];
		const isPrivate = i % 10 === 3;
		const post: PostRow = {
			Id: newOrderedGuid(now),
			AuthorId: authorId,
			IsPrivate: isPrivate,
			Content: `Post ${i}: ${"lorem ipsum dolor sit amet ".repeat(1 + (i % 4))}`,
			MessageType: 0,
			CreatedTime: now,
			UpdatedTime: now,
			ContentCreatedTime: now,
			ContentUpdatedTime: now,
			ExpirationDate: undefined,
		};
		const values = [
			`topic${Math.floor(rand() * 500)}`,
			...(i % 5 === 0 ? [commonTag] : []),
			...(i % 10_000 === 7 ? [rareTag] : []),
		];
		const tags = newTagRows(post.Id, values, now);
		const recipients: NewRecipient[] = isPrivate
			? [
					{ id: pick(userIds), type: "User" },
					...(i % 20 === 3 ? [{ id: pick(networks), type: "Network" as const }] : []),
				]
			: [];
		// Timelines are built at each reader's first read (Timelines.reconcile), as for data older than them.
		await posts.createPost(post, tags, recipients, { entries: [], oversized: [] });
		const comments = i % 100 === 0 ? 10 : i % 10 === 1 ? 1 : 0;
		for (let c = 0; c < comments; c++) {
			const at = now + c + 1;
			await posts.addComment(
				{
					Id: newOrderedGuid(at),
					PostId: post.Id,
					AuthorId: pick(userIds),
					Content: `Comment ${c} on post ${i}`,
					ContentCreatedTime: at,
					CreatedTime: at,
					UpdatedTime: at,
				},
				"Someone commented",
			);
		}
		if (comments === 10 && !isPrivate && postsWithComments.length < 200) postsWithComments.push(post.Id);
	});

	const seconds = (Date.now() - started) / 1000;
	const postSeconds = (Date.now() - postsStarted) / 1000;
	const manifest: SeedManifest = {
		users: userCount,
		posts: postCount,
		password,
		userNames: userIds.slice(0, 200).map((_, i) => `seed_user_${i}`),
		userIds: userIds.slice(0, 200),
		postsWithComments,
		commonTag,
		rareTag,
		seconds,
		postsPerSecond: Math.round(postCount / postSeconds),
	};
	fs.mkdirSync(path.dirname(path.resolve(manifestFile)), { recursive: true });
	fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
	await close();
	console.error(
		`seeded ${userCount} users and ${postCount} posts in ${seconds.toFixed(1)} s (posts with their tags, recipients and comments at ${manifest.postsPerSecond} posts/s); manifest ${manifestFile}`,
	);
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
