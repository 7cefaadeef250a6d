import { embeddedActivities, PostsRepository } from "../services/posts/posts.repository";
import { postsMigrations } from "../services/posts/posts.schema";
import { postsLegacy } from "../services/posts/posts.legacy";
import { ActivityRow, PostRow, TagRow } from "../services/posts/posts.rows";
import { Reader } from "../services/posts/posts.sql";
import { FanOut, timelineBound } from "../services/posts/timelines.repository";
import { readerSources } from "../services/posts/timeline-sources";
import { MongoPostsRepository } from "../services/posts/posts.mongo";
import { postsMongoMigrations } from "../services/posts/post-documents.mongo";
import { Page } from "../shared/persistence/sql/paging";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { MongoStore } from "../shared/persistence/mongo/store";
import { migrateMongo } from "../shared/persistence/mongo/migrations";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";
import { Collection, Db, Document } from "mongodb";
import { openTestMongo } from "./support/mongo";

/** The former embedded store is imported into SQL engines only (at the embedded store's first start). */
const onSql = (engine: string) => (engine === "mongodb" ? test.skip : test);

function postOf(fields: Partial<PostRow> & { AuthorId: string; CreatedTime: number }): PostRow {
	const t = fields.CreatedTime;
	return {
		Id: newGuid(),
		IsPrivate: false,
		Content: "x",
		MessageType: 0,
		UpdatedTime: t,
		ContentCreatedTime: t,
		ContentUpdatedTime: t,
		...fields,
	};
}

/** A post written with no timeline entries: its readers' timelines get it from their backfill at their first read. */
const noFanOut: FanOut = { entries: [], oversized: [] };

const tagsOf = (post: PostRow, values: string[]): TagRow[] =>
	values.map(Value => ({
		Id: newGuid(),
		PostId: post.Id,
		TagType: 0,
		Value,
		CreatedTime: post.CreatedTime,
		UpdatedTime: post.CreatedTime,
	}));

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

/** A reader's home timeline page, with these people and networks followed. */
function feedOf(
	repo: RepositoryContract<PostsRepository>,
	userId: string,
	people: string[],
	networks: string[],
	page: Page,
) {
	return repo.timelines.page(
		{ userId, admin: false, networks, hidden: [] },
		readerSources(userId, { people, networks, hidden: [], muted: [] }),
		page,
	);
}

describe.each(storeEngines)("the posts repository on %s", engine => {
	const under = onStore<RepositoryContract<PostsRepository>>(engine, {
		domain: "posts",
		sql: { migrations: postsMigrations, create: db => new PostsRepository(db) },
		mongo: { migrations: postsMongoMigrations, create: store => new MongoPostsRepository(store) },
	});

	test("a post with its tags and recipients; 10 identical CreateTag and CreatePostRecipient at once make one row and one activity each", async () => {
		const author = newGuid();
		const reader = newGuid();
		const post = postOf({ AuthorId: author, CreatedTime: 1000, Url: "https://example.org" });
		await under.repo.createPost(post, tagsOf(post, ["Intro", "hello"]), [{ id: reader, type: "User" }], noFanOut);
		const admin: Reader = { admin: true, networks: [], hidden: [] };
		expect(await under.repo.visiblePost(post.Id, admin)).toEqual(post);

		const tags = await Promise.all(Array.from({ length: 10 }, () => under.repo.addTag(post.Id, "News", 2, 2000)));
		expect(tags.filter(t => t.inserted)).toHaveLength(1);
		expect(new Set(tags.map(t => t.row.Id)).size).toBe(1);
		const network = newGuid();
		const added = await Promise.all(
			Array.from({ length: 10 }, () =>
				under.repo.addRecipient(post.Id, { id: network, type: "Network" }, "Club was added", 3000, noFanOut),
			),
		);
		expect(added.filter(Boolean)).toHaveLength(1);
		expect(await under.count("post_tags", { post_id: post.Id, name: "news" })).toBe(1);
		expect(await under.count("post_recipients", { post_id: post.Id })).toBe(2);
		expect((await under.repo.activities(post.Id, { Offset: 0, Limit: 100 })).map(a => a.Message)).toEqual([
			"Tagged News",
			"Club was added",
		]);

		const parts = await under.repo.parts([post.Id]);
		expect(parts.tags.get(post.Id)?.map(t => t.Value)).toEqual(["Intro", "hello", "News"]);
		expect(parts.recipients.get(post.Id)?.map(r => [r.RecipientId, r.ParticipantType])).toEqual([
			[reader, "User"],
			[network, "Network"],
		]);
		expect(
			(await under.repo.recipients(post.Id, { Offset: 0, Limit: 1, AfterId: reader })).map(r => r.RecipientId),
		).toEqual([network]);
	});

	test("CreateTag and CreatePostRecipient of what a post was made with add nothing; on a post that is not there, a 404 and nothing", async () => {
		const reader = newGuid();
		const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
		await under.repo.createPost(post, tagsOf(post, ["Intro"]), [{ id: reader, type: "User" }], noFanOut);
		const again = await under.repo.addTag(post.Id, "INTRO", 1, 2000);
		expect(again).toMatchObject({
			inserted: false,
			row: { PostId: post.Id, Value: "Intro", TagType: 0, CreatedTime: 1000 },
		});
		expect(
			await under.repo.addRecipient(post.Id, { id: reader, type: "User" }, "Reader was added", 2000, noFanOut),
		).toBe(false);
		expect(await under.repo.activities(post.Id, { Offset: 0, Limit: 10 })).toEqual([]);
		expect((await under.repo.visiblePost(post.Id, { admin: true, networks: [], hidden: [] }))?.UpdatedTime).toBe(1000);

		const missing = newGuid();
		await expect(under.repo.addTag(missing, "News", 0, 2000)).rejects.toMatchObject({ code: 404 });
		expect(
			await under.repo.addRecipient(missing, { id: reader, type: "User" }, "Reader was added", 2000, noFanOut),
		).toBe(false);
		expect(await under.count("post_tags", { post_id: missing })).toBe(0);
		expect(await under.count("post_recipients", { post_id: missing })).toBe(0);
	});

	test("a private post reaches a user and a network's member once they are added to it, and a stranger never", async () => {
		const author = newGuid();
		const [later, member, stranger, network] = [newGuid(), newGuid(), newGuid(), newGuid()];
		const post = postOf({ AuthorId: author, CreatedTime: 1000, IsPrivate: true });
		await under.repo.createPost(post, tagsOf(post, ["secret"]), [], noFanOut);
		const views: Record<string, Reader> = {
			later: { userId: later, admin: false, networks: [], hidden: [] },
			member: { userId: member, admin: false, networks: [network], hidden: [] },
			stranger: { userId: stranger, admin: false, networks: [newGuid()], hidden: [] },
			anonymous: { admin: false, networks: [], hidden: [] },
		};
		const sees = async (reader: Reader) => ({
			post: (await under.repo.visiblePost(post.Id, reader))?.Id,
			among: await under.repo.visibleAmong([post.Id], reader),
			search: (await under.repo.lists.searchByTag(reader, ["secret"], undefined, { Offset: 0, Limit: 10 })).map(
				p => p.Id,
			),
		});
		const seen = { post: post.Id, among: [post.Id], search: [post.Id] };
		const unseen = { post: undefined, among: [], search: [] };
		expect(await sees({ userId: author, admin: false, networks: [], hidden: [] })).toEqual(seen);
		for (const reader of Object.values(views)) expect(await sees(reader)).toEqual(unseen);

		expect(await under.repo.addRecipient(post.Id, { id: later, type: "User" }, "Later was added", 2000, noFanOut)).toBe(
			true,
		);
		expect(await sees(views.later)).toEqual(seen);
		expect((await feedOf(under.repo, later, [], [], { Offset: 0, Limit: 10 })).map(p => p.Id)).toEqual([post.Id]);
		expect(await sees(views.member)).toEqual(unseen);
		expect(
			await under.repo.addRecipient(post.Id, { id: network, type: "Network" }, "Club was added", 3000, noFanOut),
		).toBe(true);
		expect(await sees(views.member)).toEqual(seen);
		expect((await feedOf(under.repo, member, [], [network], { Offset: 0, Limit: 10 })).map(p => p.Id)).toEqual([
			post.Id,
		]);
		expect(await sees(views.stranger)).toEqual(unseen);
		expect(await sees(views.anonymous)).toEqual(unseen);
		expect((await feedOf(under.repo, stranger, [author], [], { Offset: 0, Limit: 10 })).map(p => p.Id)).toEqual([]);
		await expect(
			feedOf(under.repo, stranger, [author], [], { Offset: 0, Limit: 10, AfterId: post.Id }),
		).rejects.toMatchObject({ code: 400 });
		expect((await under.repo.visiblePost(post.Id, { admin: true, networks: [], hidden: [] }))?.UpdatedTime).toBe(3000);
	});

	test("a post carries its latest activities only; PostActivities pages through all of them, by offset and cursor alike", async () => {
		const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
		const other = postOf({ AuthorId: newGuid(), CreatedTime: 1001 });
		await under.repo.createPost(post, [], [], noFanOut);
		await under.repo.createPost(other, [], [], noFanOut);
		for (let i = 0; i < 45; i++) {
			await under.repo.addComment(
				{
					Id: newGuid(),
					PostId: post.Id,
					AuthorId: newGuid(),
					Content: `c${i}`,
					ContentCreatedTime: 5000 - i,
					CreatedTime: 5000,
					UpdatedTime: 5000,
				},
				`comment ${i}`,
			);
		}
		await under.repo.addComment(
			{
				Id: newGuid(),
				PostId: other.Id,
				AuthorId: newGuid(),
				Content: "only",
				ContentCreatedTime: 1,
				CreatedTime: 1,
				UpdatedTime: 1,
			},
			"one comment",
		);
		const latest = Array.from({ length: embeddedActivities }, (_, i) => `comment ${45 - embeddedActivities + i}`);
		for (const ids of [[post.Id], [post.Id, other.Id]]) {
			const parts = await under.repo.parts(ids);
			expect(parts.activities.get(post.Id)?.map(a => a.Message)).toEqual(latest);
			expect(parts.comments.get(post.Id)?.map(c => c.Content)).toEqual(
				Array.from({ length: 45 }, (_, i) => `c${44 - i}`),
			);
		}
		expect((await under.repo.parts([post.Id, other.Id])).activities.get(other.Id)?.map(a => a.Message)).toEqual([
			"one comment",
		]);

		const { byOffset, byCursor } = await byOffsetAndCursor(page => under.repo.activities(post.Id, page), 7);
		expect(byOffset).toHaveLength(45);
		expect(byCursor).toEqual(byOffset);
		const comments = await byOffsetAndCursor(page => under.repo.comments(post.Id, page), 10);
		expect(comments.byCursor).toEqual(comments.byOffset);
		await expect(under.repo.activities(post.Id, { Offset: 0, Limit: 5, AfterId: newGuid() })).rejects.toMatchObject({
			code: 400,
		});
	});

	const commentOn = (post: PostRow, Content: string, at: number) => ({
		Id: newGuid(),
		PostId: post.Id,
		AuthorId: newGuid(),
		Content,
		ContentCreatedTime: at,
		CreatedTime: at,
		UpdatedTime: at,
	});

	test("an edit sets content, details and ContentUpdatedTime, adding one activity; a missing post: nothing", async () => {
		const admin: Reader = { admin: true, networks: [], hidden: [] };
		const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000, Url: "https://example.org", ContentKey: "k1" });
		await under.repo.createPost(post, [], [], noFanOut);
		const edited = await under.repo.updatePost(
			post.Id,
			{ Content: "edited", Url: null, ContentParameters: "{}" },
			"Post edited",
			2000,
		);
		const { Url: _cleared, ...kept } = post;
		const expected = {
			...kept,
			Content: "edited",
			ContentParameters: "{}",
			ContentUpdatedTime: 2000,
			UpdatedTime: 2000,
		};
		expect(edited).toEqual(expected);
		expect(edited?.ContentCreatedTime).toBe(1000);
		expect(await under.repo.visiblePost(post.Id, admin)).toEqual(expected);
		expect(
			(await under.repo.activities(post.Id, { Offset: 0, Limit: 10 })).map(a => [a.Message, a.CreatedTime]),
		).toEqual([["Post edited", 2000]]);
		// Details left undefined stay as they are.
		expect(await under.repo.updatePost(post.Id, { Content: "again" }, "Post edited", 3000)).toEqual({
			...expected,
			Content: "again",
			ContentUpdatedTime: 3000,
			UpdatedTime: 3000,
		});

		const missing = newGuid();
		expect(await under.repo.updatePost(missing, { Content: "nothing" }, "Post edited", 2000)).toBeUndefined();
		expect(await under.count("post_activities", { post_id: missing })).toBe(0);
		expect(await under.repo.visiblePost(missing, admin)).toBeUndefined();
	});

	test("a deleted post leaves its id, lists, tag search, timelines and parts; again, it finds none", async () => {
		const admin: Reader = { admin: true, networks: [], hidden: [] };
		const [author, reader] = [newGuid(), newGuid()];
		const tag = `t${newGuid()}`;
		const page = { Offset: 0, Limit: 10 };
		const ids = (posts: PostRow[]) => posts.map(p => p.Id);
		// The reader's timeline is built before the posts, so the fan-out pushes them into it.
		expect(await feedOf(under.repo, reader, [author], [], page)).toEqual([]);
		const toReader: FanOut = { entries: [{ ownerId: reader, source: `follows:${author}` }], oversized: [] };
		const kept = postOf({ AuthorId: author, CreatedTime: 1000 });
		const post = postOf({ AuthorId: author, CreatedTime: 2000 });
		await under.repo.createPost(kept, tagsOf(kept, [tag]), [], toReader);
		await under.repo.createPost(post, tagsOf(post, [tag]), [{ id: newGuid(), type: "User" }], toReader);
		await under.repo.addTag(post.Id, "Extra", 0, 2500);
		const comment = commentOn(post, "hi", 3000);
		await under.repo.addComment(comment, "Ada commented");
		expect(await under.count("timeline_entries", { owner_id: reader })).toBe(2);
		expect(ids(await feedOf(under.repo, reader, [author], [], page))).toEqual([post.Id, kept.Id]);

		expect(await under.repo.deletePost(post, [reader])).toBe(true);
		expect(await under.repo.visiblePost(post.Id, admin)).toBeUndefined();
		expect(ids(await under.repo.lists.userPosts(admin, author, page))).toEqual([kept.Id]);
		expect(ids(await under.repo.lists.searchByTag(admin, [tag], undefined, page))).toEqual([kept.Id]);
		expect(ids(await feedOf(under.repo, reader, [author], [], page))).toEqual([kept.Id]);
		expect(await under.count("timeline_entries", { owner_id: reader })).toBe(1);
		expect(await under.repo.comments(post.Id, page)).toEqual([]);
		expect(await under.repo.findComment(comment.Id)).toBeUndefined();
		for (const table of ["post_tags", "post_recipients", "post_activities", "comments"])
			expect(await under.count(table, { post_id: post.Id })).toBe(0);
		expect(await under.count("post_tags", { post_id: kept.Id })).toBe(1);

		expect(await under.repo.deletePost(post, [reader])).toBe(false);
		expect(ids(await under.repo.lists.userPosts(admin, author, page))).toEqual([kept.Id]);
	});

	test("a comment's activity names its author: a page without hidden actors is cut in the query, and the parts carry it", async () => {
		const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
		await under.repo.createPost(post, [], [], noFanOut);
		const [ada, bo] = [commentOn(post, "one", 2000), commentOn(post, "two", 2100)];
		await under.repo.addComment(ada, "Ada commented");
		await under.repo.addTag(post.Id, "Extra", 0, 2050);
		await under.repo.addComment(bo, "Bo commented");
		const messages = (rows: ActivityRow[] | undefined) => rows?.map(a => a.Message);
		expect(messages(await under.repo.activities(post.Id, { Offset: 0, Limit: 10 }, [ada.AuthorId]))).toEqual([
			"Tagged Extra",
			"Bo commented",
		]);
		expect(messages(await under.repo.activities(post.Id, { Offset: 0, Limit: 1 }, [ada.AuthorId]))).toEqual([
			"Tagged Extra",
		]);
		const parts = (await under.repo.parts([post.Id])).activities.get(post.Id);
		expect(parts?.map(a => [a.Message, a.ActorId])).toEqual([
			["Ada commented", ada.AuthorId],
			["Tagged Extra", undefined],
			["Bo commented", bo.AuthorId],
		]);
	});

	test("a comment's edit sets content and UpdatedTime; its deletion returns it; then neither finds it", async () => {
		const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
		await under.repo.createPost(post, [], [], noFanOut);
		const comment = commentOn(post, "first", 2000);
		const other = commentOn(post, "other", 2100);
		await under.repo.addComment(comment, "Ada commented");
		await under.repo.addComment(other, "Bo commented");
		const edited = { ...comment, Content: "second", UpdatedTime: 3000 };
		expect(await under.repo.updateComment(comment.Id, "second", 3000)).toEqual(edited);
		expect(await under.repo.findComment(comment.Id)).toEqual(edited);

		expect(await under.repo.deleteComment(comment.Id)).toEqual(edited);
		expect(await under.repo.findComment(comment.Id)).toBeUndefined();
		expect((await under.repo.comments(post.Id, { Offset: 0, Limit: 10 })).map(c => c.Id)).toEqual([other.Id]);
		expect(await under.repo.deleteComment(comment.Id)).toBeUndefined();
		expect(await under.repo.updateComment(comment.Id, "third", 4000)).toBeUndefined();
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
				const post = postOf({
					AuthorId: i % 2 ? author : friend,
					CreatedTime: 10_000 + Math.floor(i / 3),
					IsPrivate: isPrivate,
					ContextId: i % 5 === 0 ? context : undefined,
				});
				const recipients = isPrivate
					? [i % 8 === 3 ? { id: network, type: "Network" as const } : { id: member, type: "User" as const }]
					: [];
				await under.repo.createPost(
					post,
					tagsOf(post, i % 3 === 0 ? ["common", "Rare"] : ["common"]),
					recipients,
					noFanOut,
				);
				(isPrivate ? privateIds : visibleToAll).push(post.Id);
			}
			const expired = postOf({ AuthorId: author, CreatedTime: 20_000, ExpirationDate: 1 });
			await under.repo.createPost(expired, tagsOf(expired, ["common"]), [], noFanOut);
		});

		const strangerView: Reader = { userId: stranger, admin: false, networks: [], hidden: [] };

		test("a stranger never gets a private post, by tag, without tags, in a context or after a cursor", async () => {
			for (const tags of [["common"], ["common", "rare"], []]) {
				for (const contextId of [undefined, context]) {
					const all = await under.repo.lists.searchByTag(strangerView, tags, contextId, { Offset: 0, Limit: 1000 });
					expect(all.length).toBeGreaterThan(0);
					expect(all.filter(p => privateIds.includes(p.Id) || p.IsPrivate)).toEqual([]);
				}
			}
			await expect(
				under.repo.lists.searchByTag(strangerView, ["common"], undefined, {
					Offset: 0,
					Limit: 5,
					AfterId: privateIds[0],
				}),
			).rejects.toMatchObject({ code: 400 });
			expect(await under.repo.visiblePost(privateIds[0], strangerView)).toBeUndefined();
			expect(await under.repo.visibleAmong([privateIds[0], visibleToAll[0]], strangerView)).toEqual([visibleToAll[0]]);
		});

		test("the author, a recipient and a recipient network's member see the private posts meant for them", async () => {
			const common = async (reader: Reader) =>
				(await under.repo.lists.searchByTag(reader, ["common"], undefined, { Offset: 0, Limit: 1000 })).map(p => p.Id);
			expect(await common({ userId: author, admin: false, networks: [], hidden: [] })).toHaveLength(60);
			expect(await common({ admin: true, networks: [], hidden: [] })).toHaveLength(60);
			const viaNetwork = await common({ userId: newGuid(), admin: false, networks: [network], hidden: [] });
			const direct = await common({ userId: member, admin: false, networks: [], hidden: [] });
			expect(viaNetwork.length + direct.length).toBe(2 * visibleToAll.length + privateIds.length);
		});

		test("in a context, a private post shows to its audience only, with or without tags", async () => {
			// The private posts in the context: i = 15 and 55 addressed to the member, i = 35 to the network.
			const [to15, to35, to55] = [3, 8, 13].map(k => privateIds[k]);
			const privateInContext = async (reader: Reader, tags: string[]) =>
				(await under.repo.lists.searchByTag(reader, tags, context, { Offset: 0, Limit: 1000 }))
					.filter(p => p.IsPrivate)
					.map(p => p.Id);
			expect(await privateInContext({ userId: member, admin: false, networks: [], hidden: [] }, [])).toEqual([
				to55,
				to15,
			]);
			expect(await privateInContext({ userId: newGuid(), admin: false, networks: [network], hidden: [] }, [])).toEqual([
				to35,
			]);
			expect(
				await privateInContext({ userId: member, admin: false, networks: [network], hidden: [] }, ["common"]),
			).toEqual([to55, to35, to15]);
			expect(await privateInContext({ userId: member, admin: false, networks: [], hidden: [] }, ["rare"])).toEqual([
				to15,
			]);
			expect(await privateInContext({ userId: author, admin: false, networks: [], hidden: [] }, [])).toEqual([
				to55,
				to35,
				to15,
			]);
			expect(await privateInContext({ admin: true, networks: [], hidden: [] }, [])).toEqual([to55, to35, to15]);
			expect(await privateInContext(strangerView, [])).toEqual([]);
		});

		test("search: newest first, expired posts left out, offset and cursor pages agree", async () => {
			const reader: Reader = { userId: member, admin: false, networks: [network], hidden: [] };
			for (const tags of [["common"], ["rare"], ["common", "rare"], []]) {
				const all = await under.repo.lists.searchByTag(reader, tags, undefined, { Offset: 0, Limit: 1000 });
				expect(all.map(p => p.Id)).not.toContain(undefined);
				expect(all.every(p => p.ExpirationDate === undefined)).toBe(true);
				const order = all.map(p => [p.CreatedTime, p.Id] as const);
				expect(order).toEqual([...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1)));
				const { byOffset, byCursor } = await byOffsetAndCursor(
					page => under.repo.lists.searchByTag(reader, tags, undefined, page),
					7,
				);
				expect(byOffset).toEqual(all.map(p => p.Id));
				expect(byCursor).toEqual(byOffset);
			}
			expect(await under.repo.lists.searchByTag(reader, ["common"], undefined, { Offset: 0, Limit: 0 })).toEqual([]);
		});

		test("feed: own posts, followed people's public posts and posts addressed to one; offset and cursor agree, also past 200 parts", async () => {
			const mine = await feedOf(under.repo, author, [], [], { Offset: 0, Limit: 1000 });
			expect(mine).toHaveLength(30);
			const withFriend = await feedOf(under.repo, author, [friend], [], { Offset: 0, Limit: 1000 });
			expect(withFriend.filter(p => p.AuthorId === friend).every(p => !p.IsPrivate)).toBe(true);
			expect(withFriend.length).toBe(30 + visibleToAll.filter(id => !mine.some(p => p.Id === id)).length);
			const many = Array.from({ length: 150 }, () => newGuid());
			for (const people of [[friend], [...many, friend]]) {
				const { byOffset, byCursor } = await byOffsetAndCursor(
					page => feedOf(under.repo, stranger, people, [network], page),
					6,
				);
				expect(byCursor).toEqual(byOffset);
				// The friend's 30 public posts, and the 8 private posts addressed to the network.
				expect(byOffset.filter(id => privateIds.includes(id))).toEqual(
					privateIds.filter((_, k) => k % 2 === 0).reverse(),
				);
				expect(byOffset).toHaveLength(38);
			}
		});
	});

	describe("home timelines", () => {
		const page = (Offset: number, Limit: number) => ({ Offset, Limit });
		const ids = (posts: Array<{ Id: string }>) => posts.map(p => p.Id);
		/** A post by `author`, pushed to each of `readers` through `source`, as CreatePost's fan-out does. */
		async function pushed(
			author: string,
			at: number,
			readers: string[],
			source: string,
			fields: Partial<PostRow> = {},
			oversized: string[] = [],
		) {
			const post = postOf({ AuthorId: author, CreatedTime: at, ...fields });
			await under.repo.createPost(post, [], [], { entries: readers.map(ownerId => ({ ownerId, source })), oversized });
			return post;
		}

		test("a pushed post is on its readers' timelines, newest first; a private one never reaches a reader whose source no longer brings it", async () => {
			const [author, reader, network] = [newGuid(), newGuid(), newGuid()];
			const first = await pushed(author, 1000, [reader], `follows:${author}`);
			const second = await pushed(author, 2000, [reader], `follows:${author}`);
			expect(ids(await feedOf(under.repo, reader, [author], [], page(0, 10)))).toEqual([second.Id, first.Id]);
			// Built for these sources, the timeline gets a private post through a network the reader is no longer in (a push
			// racing their leaving).
			const secret = await pushed(author, 3000, [reader], `member:${network}`, { IsPrivate: true });
			expect(ids(await feedOf(under.repo, reader, [author], [], page(0, 10)))).toEqual([second.Id, first.Id]);
			expect(ids(await feedOf(under.repo, reader, [author], [network], page(0, 10)))).toEqual([
				secret.Id,
				second.Id,
				first.Id,
			]);
		});

		test("the audience moves, the timeline follows: a source left takes its posts out, a source joined brings its recent ones in", async () => {
			const [author, other, reader] = [newGuid(), newGuid(), newGuid()];
			const old = await pushed(author, 1000, [], `follows:${author}`);
			const mine = await pushed(reader, 1500, [reader], `self:${reader}`);
			const theirs = await pushed(other, 2000, [reader], `follows:${other}`);
			expect(ids(await feedOf(under.repo, reader, [other], [], page(0, 10)))).toEqual([theirs.Id, mine.Id]);
			expect(ids(await feedOf(under.repo, reader, [author, other], [], page(0, 10)))).toEqual([
				theirs.Id,
				mine.Id,
				old.Id,
			]);
			expect(ids(await feedOf(under.repo, reader, [author], [], page(0, 10)))).toEqual([mine.Id, old.Id]);
			expect(await under.count("timeline_entries", { owner_id: reader, source: `follows:${other}` })).toBe(0);
		});

		onSql(engine)("a post and its fan-out are one transaction: a push that fails leaves no post", async () => {
			const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
			const reader = newGuid();
			await feedOf(under.repo, reader, [], [], page(0, 10));
			const broken = JSON.parse(`{"entries": [{"ownerId": "${reader}", "source": null}], "oversized": []}`) as FanOut;
			await expect(under.repo.createPost(post, tagsOf(post, ["lost"]), [], broken)).rejects.toThrow();
			expect(await under.repo.visiblePost(post.Id, { admin: true, networks: [], hidden: [] })).toBeUndefined();
			expect(await under.count("post_tags", { post_id: post.Id })).toBe(0);
		});

		test("a source too large to push is pulled by its readers from its own index", async () => {
			const [star, reader] = [newGuid(), newGuid()];
			expect(await feedOf(under.repo, reader, [star], [], page(0, 10))).toEqual([]);
			const post = await pushed(star, 1000, [], `follows:${star}`, {}, [`follows:${star}`]);
			expect(await under.count("timeline_entries", { post_id: post.Id })).toBe(0);
			expect(ids(await feedOf(under.repo, reader, [star], [], page(0, 10)))).toEqual([post.Id]);
		});

		test("past the timeline's bound a page is assembled from the sources: every page by offset and by cursor is the same list", async () => {
			const [author, reader] = [newGuid(), newGuid()];
			const written: string[] = [];
			for (let i = 0; i < timelineBound + 12; i++)
				written.unshift((await pushed(author, 10_000 + Math.floor(i / 2), [], `follows:${author}`)).Id);
			const read = (p: Page) => feedOf(under.repo, reader, [author], [], p);
			const deep = await read(page(timelineBound - 4, 10));
			expect(deep).toHaveLength(10);
			expect(await under.count("timeline_entries", { owner_id: reader })).toBe(timelineBound);
			const all = ids(await read(page(0, 1000)));
			expect(all).toHaveLength(timelineBound + 12);
			expect(ids(deep)).toEqual(all.slice(timelineBound - 4, timelineBound + 6));
			const { byOffset, byCursor } = await byOffsetAndCursor(read, 97);
			expect(byOffset).toEqual(all);
			expect(byCursor).toEqual(all);
			expect(new Set(all)).toEqual(new Set(written));
		});
	});

	onSql(engine)("the former store's documents are imported once, however often the import runs", async () => {
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
		const comment = {
			_id: newGuid(),
			PostId: postId,
			AuthorId: newGuid(),
			Content: "hi",
			ContentCreatedTime: 7,
			CreatedTime: 7,
			UpdatedTime: 7,
		};
		for (let i = 0; i < 2; i++) {
			await postsLegacy.posts(under.repo, doc);
			await postsLegacy.comments(under.repo, comment);
		}
		const post = await under.repo.visiblePost(postId, { admin: true, networks: [], hidden: [] });
		expect(post).toMatchObject({ Id: postId, IsPrivate: true, Content: "old" });
		const parts = await under.repo.parts([postId]);
		expect([
			parts.tags.get(postId)?.length,
			parts.recipients.get(postId)?.length,
			parts.activities.get(postId)?.length,
			parts.comments.get(postId)?.length,
		]).toEqual([1, 1, 1, 1]);
	});
});

/** A store whose writes to one collection fail, as if the process died just before them. */
class CutOffBefore extends MongoStore {
	constructor(
		db: Db,
		private readonly cutAt: string,
	) {
		super(db);
	}

	override collection<T extends Document>(name: string): Collection<T> {
		const collection = super.collection<T>(name);
		if (name !== this.cutAt) return collection;
		const cut = () => Promise.reject(new Error(`cut off before writing to ${name}`));
		return Object.assign(Object.create(collection) as Collection<T>, {
			insertOne: cut,
			insertMany: cut,
			updateOne: cut,
		});
	}
}

(storeEngines.includes("mongodb") ? describe : describe.skip)(
	"the posts repository on mongodb, cut off between its writes",
	() => {
		let mongo: ReturnType<typeof openTestMongo>;
		let db: Db;
		let repo: MongoPostsRepository;
		const admin: Reader = { admin: true, networks: [], hidden: [] };
		beforeAll(async () => {
			mongo = openTestMongo();
			db = mongo.db;
			await migrateMongo(db, "posts", postsMongoMigrations);
			repo = new MongoPostsRepository(new MongoStore(db));
		});
		afterAll(() => mongo.close());

		test("a post whose tags and recipients were written, not itself, is in no list and found by no id; the same call again makes it whole", async () => {
			const reader = newGuid();
			const tag = `t${newGuid()}`;
			const others = [1000, 3000, 4000].map(t => postOf({ AuthorId: newGuid(), CreatedTime: t }));
			for (const other of others)
				await repo.createPost(other, tagsOf(other, [tag]), [{ id: reader, type: "User" }], noFanOut);
			const half = postOf({ AuthorId: newGuid(), CreatedTime: 2000, IsPrivate: true });
			const halfTags = tagsOf(half, [tag]);
			await expect(
				new MongoPostsRepository(new CutOffBefore(db, "posts")).createPost(
					half,
					halfTags,
					[{ id: reader, type: "User" }],
					noFanOut,
				),
			).rejects.toThrow(/cut off/);
			expect([
				await db.collection("post_tags").countDocuments({ post_id: half.Id }),
				await db.collection("post_recipients").countDocuments({ post_id: half.Id }),
			]).toEqual([1, 1]);

			const readerView: Reader = { userId: reader, admin: false, networks: [], hidden: [] };
			expect(await repo.visiblePost(half.Id, admin)).toBeUndefined();
			expect(await repo.visibleAmong([half.Id], admin)).toEqual([]);
			const newestFirst = [others[2].Id, others[1].Id, others[0].Id];
			for (const read of [
				(page: Page) => repo.lists.searchByTag(admin, [tag], undefined, page),
				(page: Page) => repo.lists.searchByTag(readerView, [tag], undefined, page),
				(page: Page) => feedOf(repo, reader, [], [], page),
			]) {
				// Pages stay full: what is not there takes no place in them.
				expect((await read({ Offset: 0, Limit: 2 })).map(p => p.Id)).toEqual(newestFirst.slice(0, 2));
				const { byOffset, byCursor } = await byOffsetAndCursor(read, 1);
				expect(byOffset).toEqual(newestFirst);
				expect(byCursor).toEqual(newestFirst);
			}

			await repo.createPost(half, halfTags, [{ id: reader, type: "User" }], noFanOut);
			expect(await repo.visiblePost(half.Id, readerView)).toEqual(half);
			expect(
				(await repo.lists.searchByTag(readerView, [tag], undefined, { Offset: 0, Limit: 10 })).map(p => p.Id),
			).toEqual([others[2].Id, others[1].Id, half.Id, others[0].Id]);
			const parts = await repo.parts([half.Id]);
			expect([parts.tags.get(half.Id)?.length, parts.recipients.get(half.Id)?.length]).toEqual([1, 1]);
		});

		test("a tag, recipient or comment whose activity was not written gets it, once, from the same call again", async () => {
			const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
			await repo.createPost(post, [], [], noFanOut);
			const cut = new MongoPostsRepository(new CutOffBefore(db, "post_activities"));
			const network = newGuid();
			const comment = {
				Id: newGuid(),
				PostId: post.Id,
				AuthorId: newGuid(),
				Content: "hi",
				ContentCreatedTime: 4000,
				CreatedTime: 4000,
				UpdatedTime: 4000,
			};
			await expect(cut.addTag(post.Id, "News", 0, 2000)).rejects.toThrow(/cut off/);
			await expect(
				cut.addRecipient(post.Id, { id: network, type: "Network" }, "Club was added", 3000, noFanOut),
			).rejects.toThrow(/cut off/);
			await expect(cut.addComment(comment, "Ada commented")).rejects.toThrow(/cut off/);
			expect(await repo.activities(post.Id, { Offset: 0, Limit: 10 })).toEqual([]);
			expect((await repo.visiblePost(post.Id, admin))?.UpdatedTime).toBe(1000);

			const tags = await Promise.all(Array.from({ length: 5 }, () => repo.addTag(post.Id, "news", 0, 5000)));
			expect(tags.map(t => [t.inserted, t.row.Value, t.row.CreatedTime])).toEqual(
				Array.from({ length: 5 }, () => [false, "News", 2000]),
			);
			expect(
				await Promise.all(
					Array.from({ length: 5 }, () =>
						repo.addRecipient(post.Id, { id: network, type: "Network" }, "Club was added", 5000, noFanOut),
					),
				),
			).toEqual([false, false, false, false, false]);
			await repo.addComment(comment, "Ada commented");
			const activities = await repo.activities(post.Id, { Offset: 0, Limit: 10 });
			expect(activities.map(a => [a.Message, a.CreatedTime])).toEqual([
				["Tagged News", 2000],
				["Club was added", 3000],
				["Ada commented", 4000],
			]);
			expect((await repo.visiblePost(post.Id, admin))?.UpdatedTime).toBe(4000);
			expect((await repo.comments(post.Id, { Offset: 0, Limit: 10 })).map(c => c.Id)).toEqual([comment.Id]);
			expect(await repo.finishCutOff(Number.MAX_SAFE_INTEGER)).toBe(0);
		});

		test("a delete cut off after the post leaves its parts to the same call again, which finishes them", async () => {
			const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
			await repo.createPost(post, tagsOf(post, ["cut"]), [{ id: newGuid(), type: "User" }], noFanOut);
			await repo.addComment(
				{
					Id: newGuid(),
					PostId: post.Id,
					AuthorId: newGuid(),
					Content: "hi",
					ContentCreatedTime: 2000,
					CreatedTime: 2000,
					UpdatedTime: 2000,
				},
				"Ada commented",
			);
			// As if the process died right after the post went.
			await db.collection<{ _id: string }>("posts").deleteOne({ _id: post.Id });
			expect(await repo.visiblePost(post.Id, admin)).toBeUndefined();
			expect(await repo.deletePost(post, [])).toBe(false);
			for (const name of ["post_tags", "post_recipients", "post_activities", "comments"])
				expect(await db.collection(name).countDocuments({ post_id: post.Id })).toBe(0);
		});

		test("never retried, the additions a crash cut off before their activity get it from the sweep, once; those under way are left to their call", async () => {
			const post = postOf({ AuthorId: newGuid(), CreatedTime: 1000 });
			await repo.createPost(post, [], [], noFanOut);
			const cut = new MongoPostsRepository(new CutOffBefore(db, "post_activities"));
			const comment = {
				Id: newGuid(),
				PostId: post.Id,
				AuthorId: newGuid(),
				Content: "hello",
				ContentCreatedTime: 4000,
				CreatedTime: 4000,
				UpdatedTime: 4000,
			};
			await expect(cut.addTag(post.Id, "Swept", 0, 2000)).rejects.toThrow(/cut off/);
			await expect(
				cut.addRecipient(post.Id, { id: newGuid(), type: "User" }, "Bo was added", 3000, noFanOut),
			).rejects.toThrow(/cut off/);
			await expect(cut.addComment(comment, "Ada commented")).rejects.toThrow(/cut off/);

			// Younger than the lease: possibly still under way, so not the sweep's.
			expect(await repo.finishCutOff(2000)).toBe(0);
			expect(await repo.finishCutOff(5000)).toBe(3);
			expect(await repo.finishCutOff(5000)).toBe(0);
			expect((await repo.activities(post.Id, { Offset: 0, Limit: 10 })).map(a => [a.Message, a.CreatedTime])).toEqual([
				["Tagged Swept", 2000],
				["Bo was added", 3000],
				["Ada commented", 4000],
			]);
			expect((await repo.visiblePost(post.Id, admin))?.UpdatedTime).toBe(4000);
			// A retry after the sweep writes no second activity.
			await repo.addComment(comment, "Ada commented");
			expect(await repo.activities(post.Id, { Offset: 0, Limit: 10 })).toHaveLength(3);
		});
	},
);
