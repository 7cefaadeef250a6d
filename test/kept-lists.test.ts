import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { describeCluster, GatewayClient, TestCluster } from "./support/cluster";
import { CallCounter } from "./support/call-counter";
import { ServiceBroker } from "moleculer";
import { PendingAnswer, ResponseCache } from "../gateway/response-cache";
import { operationNamed } from "../shared/catalogue";
import { CALLER_SCOPE } from "../shared/caller";

/**
 * Issue 12 (R3, R4) and item 6: a first page of UserFeed or SearchPostsByTag is kept at the gateway
 * for its reader alone, and no kept page is ever served stale or to anyone else: a post that could
 * join it, a change to a post it lists, a change of whom its reader follows, and a listed post's
 * expiry each show on the very next read, through the real gateway, in one process and across nodes.
 */

type Records = WireRecord[];
const ids = (records: Records) => records.map(r => r.Id);

describe("kept feeds and searches in one process", () => {
	const calls = new CallCounter();
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza({}, [calls.middleware]);
	});
	afterAll(() => plaza.stop());

	/** A read through the gateway, and whether the posts service was asked for it (false: a kept answer). */
	const read = async (who: Session, path: string) => {
		calls.reset();
		const reply = await who.http<Records>("GET", path);
		expect(reply.status).toBe(200);
		const asked = Object.entries(calls.snapshot()).some(([action, n]) => action.startsWith("posts.") && n > 0);
		return { posts: reply.body, asked };
	};
	const feedOf = (who: Session) => read(who, `/Users/${who.userId}/Feed`);
	const post = async (who: Session, fields: Record<string, unknown>) => {
		const reply = await who.http("POST", "/Posts", { AuthorId: who.userId, Content: "a post", ...fields });
		expect(reply.status).toBe(200);
		return reply.body;
	};
	const unique = () => `t${Date.now()}${Math.floor(Math.random() * 1e6)}`;

	test("a feed is read once, then kept until a followed author posts, a listed post is commented on, or its reader follows someone", async () => {
		const [reader, followed, later] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		expect(
			(await reader.http("POST", "/Subscriptions", { SubscriberId: reader.userId, SubscribedToId: followed.userId }))
				.status,
		).toBe(200);
		const first = await post(followed, { Content: "first" });
		expect(await feedOf(reader)).toEqual({ posts: [expect.objectContaining({ Id: first.Id })], asked: true });
		expect(await feedOf(reader)).toEqual({ posts: [expect.objectContaining({ Id: first.Id })], asked: false });

		const second = await post(followed, { Content: "second" });
		expect(ids((await feedOf(reader)).posts)).toEqual([second.Id, first.Id]);
		expect((await feedOf(reader)).asked).toBe(false);

		expect(
			(
				await later.http("POST", `/Posts/${first.Id}/Comments`, {
					PostId: first.Id,
					AuthorId: later.userId,
					Content: "noted",
				})
			).status,
		).toBe(200);
		const commented = (await feedOf(reader)).posts.find(p => p.Id === first.Id);
		expect((commented?.Comments as Records).map(c => c.Content)).toEqual(["noted"]);

		const elsewhere = await post(later, { Content: "not followed yet" });
		expect(ids((await feedOf(reader)).posts)).not.toContain(elsewhere.Id);
		expect(
			(await reader.http("POST", "/Connections", { OwnerId: reader.userId, ConnectToId: later.userId })).status,
		).toBe(200);
		expect(ids((await feedOf(reader)).posts)).toEqual([elsewhere.Id, second.Id, first.Id]);
	});

	test("a private post shows at once in the kept feed and search of a recipient added later, and never in a stranger's", async () => {
		const [author, recipient, stranger] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		const tag = unique();
		const search = `/Search/Posts?TagNames=${tag}`;
		const secret = await post(author, { Content: "secret", IsPrivate: true, Tags: [tag] });
		for (const who of [recipient, stranger]) {
			for (let i = 0; i < 2; i++) {
				expect((await feedOf(who)).posts).toEqual([]);
				expect((await read(who, search)).posts).toEqual([]);
			}
		}
		expect((await read(recipient, search)).asked).toBe(false);

		expect(
			(await author.http("POST", `/Posts/${secret.Id}/Recipients`, { RecipientId: recipient.userId })).status,
		).toBe(200);
		expect(ids((await feedOf(recipient)).posts)).toEqual([secret.Id]);
		expect(ids((await read(recipient, search)).posts)).toEqual([secret.Id]);
		for (let i = 0; i < 2; i++) {
			expect((await feedOf(stranger)).posts).toEqual([]);
			expect((await read(stranger, search)).posts).toEqual([]);
			// The recipient's kept feed is theirs: another caller asking for it is refused, as before it was kept.
			const refused = await stranger.http<ErrorBody>("GET", `/Users/${recipient.userId}/Feed`);
			expect([refused.status, refused.body.ResponseStatus.ErrorCode]).toEqual([403, "Forbidden"]);
		}
	});

	test("a tag added to an older post shows in a kept search at once; a page past the first is never kept", async () => {
		const author = await plaza.signUp();
		const [tag, other] = [unique(), unique()];
		const tagged = await post(author, { Tags: [tag] });
		const older = await post(author, { Tags: [other] });
		const search = `/Search/Posts?TagNames=${tag}`;
		expect(ids((await read(author, search)).posts)).toEqual([tagged.Id]);
		expect((await read(author, search)).asked).toBe(false);
		expect((await author.http("POST", `/Posts/${older.Id}/Tags`, { Value: tag.toUpperCase() })).status).toBe(200);
		expect(ids((await read(author, search)).posts)).toEqual([older.Id, tagged.Id]);

		for (let i = 0; i < 2; i++)
			expect(await read(author, `${search}&Offset=1`)).toEqual({
				posts: [expect.objectContaining({ Id: tagged.Id })],
				asked: true,
			});
	});

	test("a kept page ends when a post it lists expires", async () => {
		const author = await plaza.signUp();
		const tag = unique();
		const lasting = await post(author, { Tags: [tag] });
		const fleeting = await post(author, { Tags: [tag], ExpirationDate: `/Date(${Date.now() + 1500})/` });
		const search = `/Search/Posts?TagNames=${tag}`;
		expect(ids((await read(author, search)).posts)).toEqual([fleeting.Id, lasting.Id]);
		expect((await read(author, search)).asked).toBe(false);
		await new Promise(resolve => setTimeout(resolve, 1700));
		expect(await read(author, search)).toEqual({ posts: [expect.objectContaining({ Id: lasting.Id })], asked: true });
	});

	test("an admin reading a user's feed gets it; the user's kept feed is not the admin's, nor the admin's the user's", async () => {
		const user = await plaza.signUp();
		const mine = await post(user, { IsPrivate: true });
		expect(ids((await feedOf(user)).posts)).toEqual([mine.Id]);
		expect(ids((await feedOf(user)).posts)).toEqual([mine.Id]);
		calls.reset();
		const asAdmin = await plaza.admin<Records>("GET", `/Users/${user.userId}/Feed`);
		expect([asAdmin.status, ids(asAdmin.body)]).toEqual([200, [mine.Id]]);
		expect(calls.snapshot()["posts.feed"]).toBe(1);
	});
});

describe("the gateway's kept answers of an operation with actor fields", () => {
	test("are kept for their caller alone: a shared scope is refused, and another caller never gets one", () => {
		const cache = new ResponseCache(new ServiceBroker({ logger: false }));
		const feed = operationNamed("UserFeed")!;
		const [owner, stranger] = [
			{ userId: "owner", roles: [] },
			{ userId: "stranger", roles: [] },
		];
		const params = { UserId: "owner", Offset: 0, Limit: 20 };
		const kept = (caller: typeof owner) => "json" in cache.lookup(feed, caller, params);
		cache.keep(cache.lookup(feed, owner, params) as PendingAnswer, "everyone", Buffer.from("[]"));
		expect([kept(owner), kept(stranger)]).toEqual([false, false]);
		cache.keep(cache.lookup(feed, owner, params) as PendingAnswer, CALLER_SCOPE, Buffer.from("[]"));
		expect([kept(owner), kept(stranger)]).toEqual([true, false]);
	});
});

describeCluster("kept feeds and searches across gateways over NATS", () => {
	let cluster: TestCluster;
	let a: GatewayClient;
	let b: GatewayClient;
	const as = (who: { token: string }) => ({ "X-ss-id": who.token });

	beforeAll(async () => {
		cluster = await TestCluster.start();
		[a, b] = await cluster.startTwoGateways();
	}, 90_000);
	afterAll(() => cluster?.stop(), 60_000);

	test("a post made through gateway A shows at once in a feed and a search kept at gateway B; a stranger at B never gets it", async () => {
		const [author, reader, stranger] = await Promise.all([
			a.signUp("author"),
			b.signUp("reader"),
			b.signUp("stranger"),
		]);
		expect(
			(
				await a.call(
					"POST",
					"/Subscriptions",
					{ SubscriberId: reader.userId, SubscribedToId: author.userId },
					as(reader),
				)
			).status,
		).toBe(200);
		const tag = `across${Date.now()}`;
		const feed = () => b.call("GET", `/Users/${reader.userId}/Feed`, undefined, as(reader));
		const search = (who: { token: string }) => b.call("GET", `/Search/Posts?TagNames=${tag}`, undefined, as(who));
		for (let i = 0; i < 3; i++) {
			expect((await feed()).body).toEqual([]);
			expect((await search(reader)).body).toEqual([]);
		}
		const open = (await a.call("POST", "/Posts", { AuthorId: author.userId, Content: "open", Tags: [tag] }, as(author)))
			.body;
		expect((await feed()).body.map(p => p.Id)).toEqual([open.Id]);
		expect((await search(reader)).body.map(p => p.Id)).toEqual([open.Id]);
		const secret = (
			await a.call(
				"POST",
				"/Posts",
				{ AuthorId: author.userId, Content: "secret", IsPrivate: true, RecipientIds: [reader.userId], Tags: [tag] },
				as(author),
			)
		).body;
		expect((await search(reader)).body.map(p => p.Id)).toEqual([secret.Id, open.Id]);
		expect((await feed()).body.map(p => p.Id)).toEqual([secret.Id, open.Id]);
		for (let i = 0; i < 3; i++) expect((await search(stranger)).body.map(p => p.Id)).toEqual([open.Id]);
	});
});
