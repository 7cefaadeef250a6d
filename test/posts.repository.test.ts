import { embeddedActivities, PostsRepository } from "../services/posts/posts.repository";
import { postsMigrations } from "../services/posts/posts.schema";
import { postsLegacy } from "../services/posts/posts.legacy";
import { PostRow, TagRow } from "../services/posts/posts.rows";
import { Reader } from "../services/posts/posts.sql";
import { Page } from "../shared/persistence/sql/paging";
import { newGuid } from "../shared/wire/guid";
import { engines, EngineUnderTest, onEngine } from "./support/engines";

const count = async (engine: EngineUnderTest, sql: string, params: string[]) => Number((await engine.db.get<{ n: number }>(sql, params))?.n);

function postOf(fields: Partial<PostRow> & { AuthorId: string; CreatedTime: number }): PostRow {
	const t = fields.CreatedTime;
	return { Id: newGuid(), IsPrivate: false, Content: "x", MessageType: 0, UpdatedTime: t, ContentCreatedTime: t, ContentUpdatedTime: t, ...fields };
}

const tagsOf = (post: PostRow, values: string[]): TagRow[] => values.map(Value => ({ Id: newGuid(), PostId: post.Id, TagType: 0, Value, CreatedTime: post.CreatedTime, UpdatedTime: post.CreatedTime }));

/** Every page of a list read by Offset, and the same read by following AfterId: they must agree. */
async function byOffsetAndCursor(read: (page: Page) => Promise<Array<{ Id: string }>>, size: number) {
	const byOffset: string[] = [];
	for (let offset = 0; ; offset += size) {
		const page = await read({ Offset: offset, Limit: size });
		byOffset.push(...page.map(p => p.Id));
		if (page.length < size) break;
	}
	const byCursor: string[] = [];
	for (let after: string | undefined; ;) {
		const page = await read({ Offset: 0, Limit: size, AfterId: after });
		byCursor.push(...page.map(p => p.Id));
		if (page.length < size) break;
		after = page[page.length - 1].Id;
	}
	return { byOffset, byCursor };
}

describe.each(engines)("the posts repository on %s", (_name, open) => {
	const under = onEngine(open, postsMigrations, "posts", db => new PostsRepository(db));

	test("a post with its tags and recipients; 10 identical CreateTag and CreatePostRecipient at once make one row and one activity each", async () => {
		const author = newGuid();
		const reader = newGuid();
		const post = postOf({ AuthorId: author, CreatedTime: 1000, Url: "https://example.org" });
		await under.repo.createPost(post, tagsOf(post, ["Intro", "hello"]), [{ id: reader, type: "User" }]);
		const admin: Reader = { admin: true, networks: [] };
		expect(await under.repo.visiblePost(post.Id, admin)).toEqual(post);

		const tags = await Promise.all(Array.from({ length: 10 }, () => under.repo.addTag(post.Id, "News", 2, 2000)));
		expect(tags.filter(t => t.inserted)).toHaveLength(1);
		expect(new Set(tags.map(t => t.row.Id)).size).toBe(1);
		const network = newGuid();
		const added = await Promise.all(Array.from({ length: 10 }, () => under.repo.addRecipient(post.Id, { id: network, type: "Network" }, "Club was added", 3000)));
		expect(added.filter(Boolean)).toHaveLength(1);
		expect(await count(under.engine, "SELECT COUNT(*) AS n FROM post_tags WHERE post_id = $1 AND name = $2", [post.Id, "news"])).toBe(1);
		expect(await count(under.engine, "SELECT COUNT(*) AS n FROM post_recipients WHERE post_id = $1", [post.Id])).toBe(2);
		expect((await under.repo.activities(post.Id, { Offset: 0, Limit: 100 })).map(a => a.Message)).toEqual(["Tagged News", "Club was added"]);

		const parts = await under.repo.parts([post.Id]);
		expect(parts.tags.get(post.Id)?.map(t => t.Value)).toEqual(["Intro", "hello", "News"]);
		expect(parts.recipients.get(post.Id)?.map(r => [r.RecipientId, r.ParticipantType])).toEqual([
			[reader, "User"],
			[network, "Network"],
		]);
		expect((await under.repo.recipients(post.Id, { Offset: 0, Limit: 1, AfterId: reader })).map(r => r.RecipientId)).toEqual([network]);
	});

	test("a post carries its latest activities only; PostActivities pages through all of them, by offset and cursor alike", async () => {
		const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
		const other = postOf({ AuthorId: newGuid(), CreatedTime: 1001 });
		await under.repo.createPost(post, [], []);
		await under.repo.createPost(other, [], []);
		for (let i = 0; i < 45; i++) {
			await under.repo.addComment({ Id: newGuid(), PostId: post.Id, AuthorId: newGuid(), Content: `c${i}`, ContentCreatedTime: 5000 - i, CreatedTime: 5000, UpdatedTime: 5000 }, `comment ${i}`);
		}
		await under.repo.addComment({ Id: newGuid(), PostId: other.Id, AuthorId: newGuid(), Content: "only", ContentCreatedTime: 1, CreatedTime: 1, UpdatedTime: 1 }, "one comment");
		const latest = Array.from({ length: embeddedActivities }, (_, i) => `comment ${45 - embeddedActivities + i}`);
		for (const ids of [[post.Id], [post.Id, other.Id]]) {
			const parts = await under.repo.parts(ids);
			expect(parts.activities.get(post.Id)?.map(a => a.Message)).toEqual(latest);
			expect(parts.comments.get(post.Id)?.map(c => c.Content)).toEqual(Array.from({ length: 45 }, (_, i) => `c${44 - i}`));
		}
		expect((await under.repo.parts([post.Id, other.Id])).activities.get(other.Id)?.map(a => a.Message)).toEqual(["one comment"]);

		const { byOffset, byCursor } = await byOffsetAndCursor(page => under.repo.activities(post.Id, page), 7);
		expect(byOffset).toHaveLength(45);
		expect(byCursor).toEqual(byOffset);
		const comments = await byOffsetAndCursor(page => under.repo.comments(post.Id, page), 10);
		expect(comments.byCursor).toEqual(comments.byOffset);
		await expect(under.repo.activities(post.Id, { Offset: 0, Limit: 5, AfterId: newGuid() })).rejects.toMatchObject({ code: 400 });
	});

	describe("searches and feeds", () => {
		const author = newGuid();
		const friend = newGuid();
		const stranger = newGuid();
		const member = newGuid();
		const network = newGuid();
		const context = newGuid();
		const visibleToAll: string[] = [];
		const privateIds: string[] = [];
		beforeAll(async () => {
			for (let i = 0; i < 60; i++) {
				// Several posts share a millisecond: the Id breaks the tie.
				const isPrivate = i % 4 === 3;
				const post = postOf({ AuthorId: i % 2 ? author : friend, CreatedTime: 10_000 + Math.floor(i / 3), IsPrivate: isPrivate, ContextId: i % 5 === 0 ? context : undefined });
				const recipients = isPrivate ? [i % 8 === 3 ? { id: network, type: "Network" as const } : { id: member, type: "User" as const }] : [];
				await under.repo.createPost(post, tagsOf(post, i % 3 === 0 ? ["common", "Rare"] : ["common"]), recipients);
				(isPrivate ? privateIds : visibleToAll).push(post.Id);
			}
			const expired = postOf({ AuthorId: author, CreatedTime: 20_000, ExpirationDate: 1 });
			await under.repo.createPost(expired, tagsOf(expired, ["common"]), []);
		});

		const strangerView: Reader = { userId: stranger, admin: false, networks: [] };

		test("a stranger never gets a private post, by tag, without tags, in a context or after a cursor", async () => {
			for (const tags of [["common"], ["common", "rare"], []]) {
				for (const contextId of [undefined, context]) {
					const all = await under.repo.lists.searchByTag(strangerView, tags, contextId, { Offset: 0, Limit: 1000 });
					expect(all.length).toBeGreaterThan(0);
					expect(all.filter(p => privateIds.includes(p.Id) || p.IsPrivate)).toEqual([]);
				}
			}
			await expect(under.repo.lists.searchByTag(strangerView, ["common"], undefined, { Offset: 0, Limit: 5, AfterId: privateIds[0] })).rejects.toMatchObject({ code: 400 });
			expect(await under.repo.visiblePost(privateIds[0], strangerView)).toBeUndefined();
			expect(await under.repo.visibleAmong([privateIds[0], visibleToAll[0]], strangerView)).toEqual([visibleToAll[0]]);
		});

		test("the author, a recipient and a recipient network's member see the private posts meant for them", async () => {
			const common = async (reader: Reader) => (await under.repo.lists.searchByTag(reader, ["common"], undefined, { Offset: 0, Limit: 1000 })).map(p => p.Id);
			expect(await common({ userId: author, admin: false, networks: [] })).toHaveLength(60);
			expect(await common({ admin: true, networks: [] })).toHaveLength(60);
			const viaNetwork = await common({ userId: newGuid(), admin: false, networks: [network] });
			const direct = await common({ userId: member, admin: false, networks: [] });
			expect(viaNetwork.length + direct.length).toBe(2 * visibleToAll.length + privateIds.length);
		});

		test("search: newest first, expired posts left out, offset and cursor pages agree", async () => {
			const reader: Reader = { userId: member, admin: false, networks: [network] };
			for (const tags of [["common"], ["rare"], ["common", "rare"], []]) {
				const all = await under.repo.lists.searchByTag(reader, tags, undefined, { Offset: 0, Limit: 1000 });
				expect(all.map(p => p.Id)).not.toContain(undefined);
				expect(all.every(p => p.ExpirationDate === undefined)).toBe(true);
				const order = all.map(p => [p.CreatedTime, p.Id] as const);
				expect(order).toEqual([...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1)));
				const { byOffset, byCursor } = await byOffsetAndCursor(page => under.repo.lists.searchByTag(reader, tags, undefined, page), 7);
				expect(byOffset).toEqual(all.map(p => p.Id));
				expect(byCursor).toEqual(byOffset);
			}
			expect(await under.repo.lists.searchByTag(reader, ["common"], undefined, { Offset: 0, Limit: 0 })).toEqual([]);
		});

		test("feed: own posts, followed people's public posts and posts addressed to one; offset and cursor agree, also past 200 parts", async () => {
			const mine = await under.repo.lists.feed(author, [], [], { Offset: 0, Limit: 1000 });
			expect(mine).toHaveLength(30);
			const withFriend = await under.repo.lists.feed(author, [friend], [], { Offset: 0, Limit: 1000 });
			expect(withFriend.filter(p => p.AuthorId === friend).every(p => !p.IsPrivate)).toBe(true);
			expect(withFriend.length).toBe(30 + visibleToAll.filter(id => !mine.some(p => p.Id === id)).length);
			const many = Array.from({ length: 150 }, () => newGuid());
			for (const people of [[friend], [...many, friend]]) {
				const { byOffset, byCursor } = await byOffsetAndCursor(page => under.repo.lists.feed(stranger, people, [network], page), 6);
				expect(byCursor).toEqual(byOffset);
				// The friend's 30 public posts, and the 8 private posts addressed to the network.
				expect(byOffset.filter(id => privateIds.includes(id))).toEqual(privateIds.filter((_, k) => k % 2 === 0).reverse());
				expect(byOffset).toHaveLength(38);
			}
		});
	});

	test("the former store's documents are imported once, however often the import runs", async () => {
		const postId = newGuid();
		const doc = {
			_id: postId,
			AuthorId: newGuid(),
			Content: "old",
			IsPrivate: true,
			Recipients: [`User:${newGuid()}`],
			Tags: [{ Id: newGuid(), TagType: 0, Value: "Old", CreatedTime: 5, UpdatedTime: 5 }],
			Activities: [{ Id: newGuid(), Message: "Tagged Old", CreatedTime: 6 }],
			CreatedTime: 5,
			UpdatedTime: 6,
			ContentCreatedTime: 5,
			ContentUpdatedTime: 5,
			MessageType: 0,
		};
		const comment = { _id: newGuid(), PostId: postId, AuthorId: newGuid(), Content: "hi", ContentCreatedTime: 7, CreatedTime: 7, UpdatedTime: 7 };
		for (let i = 0; i < 2; i++) {
			await postsLegacy.posts(under.repo, doc);
			await postsLegacy.comments(under.repo, comment);
		}
		const post = await under.repo.visiblePost(postId, { admin: true, networks: [] });
		expect(post).toMatchObject({ Id: postId, IsPrivate: true, Content: "old" });
		const parts = await under.repo.parts([postId]);
		expect([parts.tags.get(postId)?.length, parts.recipients.get(postId)?.length, parts.activities.get(postId)?.length, parts.comments.get(postId)?.length]).toEqual([1, 1, 1, 1]);
	});
});
