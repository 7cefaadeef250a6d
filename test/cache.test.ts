import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { describeCluster, GatewayClient, TestCluster } from "./support/cluster";
import { CallCounter } from "./support/call-counter";
import { cacheOf } from "../shared/cache/node-caches";
import { sessionCache, sessionKeyOf } from "../shared/sessions";
import { profileCache } from "../shared/profiles";
import { audienceCache } from "../shared/audience";
import { postCache, publicPostCache } from "../services/posts/post-cache";

/**
 * Issue 12 item 6: hot reads are cached (sessions at the gateway, profiles, audiences, post
 * records) and no cache ever serves a stale or private record: what a user sees through the real
 * gateway, right after a write, in one process and across nodes.
 */

type Records = WireRecord[];
const ids = (records: Records) => records.map(r => r.Id);

describe("hot caches in one process", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
	});
	afterAll(() => plaza.stop());

	const cached = (definition: Parameters<typeof cacheOf>[1], key: string) => cacheOf(plaza.broker, definition).has(key);

	test("a signed-out session is refused at once, though the gateway had it cached", async () => {
		const user = await plaza.signUp();
		expect((await user.http("GET", `/Users/${user.userId}`)).status).toBe(200);
		expect(cached(sessionCache, sessionKeyOf(user.token))).toBe(true);
		expect((await user.http("GET", "/auth/logout")).status).toBe(200);
		expect(cached(sessionCache, sessionKeyOf(user.token))).toBe(false);
		const refused = await user.http<ErrorBody>("GET", `/Users/${user.userId}`);
		expect(refused.status).toBe(401);
		expect((await user.http("GET", "/auth")).status).toBe(401);
	});

	test("an unknown session is not cached: a token is asked about again", async () => {
		const token = "never-issued-token-of-32-chars__";
		expect((await plaza.http("GET", "/auth", undefined, { "X-ss-id": token })).status).toBe(401);
		expect(cached(sessionCache, sessionKeyOf(token))).toBe(false);
	});

	test("an account taken back ends its sessions, cached or not", async () => {
		const user = await plaza.signUp();
		expect((await user.http("GET", "/auth")).status).toBe(200);
		await plaza.broker.call("users.removeAccount", { id: user.userId }, { caller: "reservations" });
		expect((await user.http("GET", "/auth")).status).toBe(401);
		expect(await plaza.stored("sessions").count("sessions", { user_id: user.userId })).toBe(0);
	});

	test("a profile update shows at once in FindUser, in another user's Connections, and as a post's author", async () => {
		const [ann, bob] = await Promise.all([plaza.signUp({ FirstName: "Ann", LastName: "Before" }), plaza.signUp()]);
		await bob.http("POST", "/Connections", { OwnerId: bob.userId, ConnectToId: ann.userId });
		const post = (await ann.http("POST", "/Posts", { AuthorId: ann.userId, Content: "mine" })).body;
		const names = async () => {
			const found = (await bob.http("GET", `/Users/${ann.userId}`)).body;
			const connections = (await bob.http<Records>("GET", `/Users/${bob.userId}/Connections`)).body;
			const embedded = (await bob.http("GET", `/Users/${bob.userId}`)).body.Connections as Records;
			const author = (await bob.http("GET", `/Posts/${post.Id}`)).body.AuthorDisplayName;
			return { found: found.LastName, connection: connections[0].LastName, embedded: embedded[0].LastName, author };
		};
		expect(await names()).toEqual({ found: "Before", connection: "Before", embedded: "Before", author: "Ann Before" });
		expect(cached(profileCache, ann.userId)).toBe(true);
		expect((await ann.http("PUT", `/Users/${ann.userId}`, { FirstName: "Ann", LastName: "After" })).status).toBe(200);
		expect(await names()).toEqual({ found: "After", connection: "After", embedded: "After", author: "Ann After" });
	});

	describe("a private post read (and so cached) by its recipient", () => {
		let author: Session;
		let recipient: Session;
		let stranger: Session;
		let post: WireRecord;
		let unread: WireRecord;
		beforeAll(async () => {
			[author, recipient, stranger] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
			const write = (Content: string) =>
				author.http("POST", "/Posts", {
					AuthorId: author.userId,
					Content,
					IsPrivate: true,
					RecipientIds: [recipient.userId],
					Tags: ["cachedsecret"],
				});
			post = (await write("for your eyes")).body;
			unread = (await write("never read")).body;
			expect((await recipient.http("GET", `/Posts/${post.Id}`)).status).toBe(200);
			expect(ids((await recipient.http<Records>("GET", "/Search/Posts?TagNames=cachedsecret")).body)).toEqual([
				unread.Id,
				post.Id,
			]);
			expect(ids((await recipient.http<Records>(`GET`, `/Users/${recipient.userId}/Feed`)).body)).toEqual([
				unread.Id,
				post.Id,
			]);
			expect(cached(postCache, post.Id)).toBe(true);
			// Its embeds are kept; its row never is: whether a reader may see a private post is asked of the store each time.
			expect(cached(publicPostCache, post.Id)).toBe(false);
		});

		test("is refused to a stranger by FindPost, exactly as one never cached", async () => {
			const refused = await stranger.http<ErrorBody>("GET", `/Posts/${post.Id}`);
			const uncached = await stranger.http<ErrorBody>("GET", `/Posts/${unread.Id}`);
			expect(refused.status).toBe(404);
			expect([refused.status, refused.body.ResponseStatus.ErrorCode]).toEqual([
				uncached.status,
				uncached.body.ResponseStatus.ErrorCode,
			]);
			expect((await stranger.http("GET", `/Posts/${post.Id}/Comments`)).status).toBe(404);
			expect((await plaza.http("GET", `/Posts/${post.Id}`)).status).toBe(401);
		});

		test("is absent from a stranger's search and feed", async () => {
			expect((await stranger.http<Records>("GET", "/Search/Posts?TagNames=cachedsecret")).body).toEqual([]);
			expect((await stranger.http<Records>("GET", `/Users/${stranger.userId}/Feed`)).body).toEqual([]);
		});
	});

	test("a tag, a comment and a recipient added to a cached post are in the next FindPost", async () => {
		const [author, other] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const post = (await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "grows" })).body;
		const find = async () => (await other.http(`GET`, `/Posts/${post.Id}`)).body;
		const first = await find();
		expect(first.Tags).toEqual([]);
		expect(cached(postCache, post.Id)).toBe(true);
		// A public post's row is kept too (anyone may see it): its UpdatedTime must move with each write.
		expect(cached(publicPostCache, post.Id)).toBe(true);
		await new Promise(resolve => setTimeout(resolve, 5));
		expect((await author.http("POST", `/Posts/${post.Id}/Tags`, { Value: "fresh" })).status).toBe(200);
		const tagged = await find();
		expect((tagged.Tags as Records).map(t => t.Value)).toEqual(["fresh"]);
		expect(tagged.UpdatedTime).not.toBe(first.UpdatedTime);
		expect(
			(await other.http("POST", `/Posts/${post.Id}/Comments`, { AuthorId: other.userId, Content: "first!" })).status,
		).toBe(200);
		expect(((await find()).Comments as Records).map(c => c.Content)).toEqual(["first!"]);
		expect((await author.http("POST", `/Posts/${post.Id}/Recipients`, { RecipientId: other.userId })).status).toBe(200);
		const after = await find();
		expect((after.Recipients as Records).map(r => r.Id)).toEqual([other.userId]);
		expect((after.Activities as Records).map(a => a.Message)).toEqual([
			"Tagged fresh",
			expect.stringMatching(/commented$/),
			expect.stringMatching(/was added$/),
		]);
	});

	test("a connection or a membership changes what the posts service lets one see at once, both ways", async () => {
		const [me, friend, owner] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		const friendsPost = (await friend.http("POST", "/Posts", { AuthorId: friend.userId, Content: "public" })).body;
		const feed = async () => ids((await me.http<Records>("GET", `/Users/${me.userId}/Feed`)).body);
		expect(await feed()).toEqual([]);
		expect(cached(audienceCache, me.userId)).toBe(true);
		const connection = (
			await me.http<Records>("POST", "/Connections", { OwnerId: me.userId, ConnectToId: friend.userId })
		).body;
		expect(await feed()).toEqual([friendsPost.Id]);
		expect((await me.http("DELETE", `/Connections/${connection[0].Id}?OwnerId=${me.userId}`)).status).toBe(200);
		expect(await feed()).toEqual([]);

		const network = (
			await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Inner circle", IsOpen: true })
		).body;
		const secret = (
			await owner.http("POST", "/Posts", {
				AuthorId: owner.userId,
				Content: "members only",
				IsPrivate: true,
				RecipientIds: [network.Id],
			})
		).body;
		expect((await me.http("GET", `/Posts/${secret.Id}`)).status).toBe(404);
		expect((await me.http("POST", `/Networks/${network.Id}/Members`, { UserId: me.userId })).status).toBe(200);
		expect((await me.http("GET", `/Posts/${secret.Id}`)).status).toBe(200);
		await plaza.broker.call(
			"graph.leaveNetwork",
			{ networkId: network.Id, userId: me.userId },
			{ caller: "reservations" },
		);
		expect((await me.http("GET", `/Posts/${secret.Id}`)).status).toBe(404);
		expect(await feed()).toEqual([]);
	});
});

describe("answers kept at the gateway (cacheResponse): AllUsers and FindPost", () => {
	const calls = new CallCounter();
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] }, [calls.middleware]);
	});
	afterAll(() => plaza.stop());

	/** Every user on one page, and how many times the users service was asked for it. */
	const page = async (who: Session | "admin") => {
		calls.reset();
		const reply =
			who === "admin"
				? await plaza.admin<Records>("GET", "/Users?Limit=1000")
				: await who.http<Records>("GET", "/Users?Limit=1000");
		expect(reply.status).toBe(200);
		return { users: reply.body, asked: calls.snapshot()["users.list"] ?? 0 };
	};
	const userIn = (users: Records, id: string) => users.find(u => u.Id === id);

	test("a page is read once per change of users or the graph, and every change shows at once", async () => {
		const [member, other, third] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		expect((await page(member)).asked).toBe(1);
		expect((await page(member)).asked).toBe(0);
		// Another member learns their scope from their own first answer, then shares the kept one.
		expect((await page(other)).asked).toBe(1);
		expect((await page(other)).asked).toBe(0);

		expect(
			(await other.http("PUT", `/Users/${other.userId}`, { FirstName: "Renamed", LastName: "Member" })).status,
		).toBe(200);
		const renamed = await page(member);
		expect(renamed.asked).toBe(1);
		expect(userIn(renamed.users, other.userId)?.FirstName).toBe("Renamed");

		expect(
			(await other.http("POST", "/Connections", { OwnerId: other.userId, ConnectToId: third.userId })).status,
		).toBe(200);
		const connected = await page(member);
		expect(((userIn(connected.users, third.userId)?.Connections ?? []) as Records).map(c => c.UserId)).toEqual([
			other.userId,
		]);

		const newcomer = await plaza.signUp();
		expect(userIn((await page(member)).users, newcomer.userId)).toBeDefined();
	});

	test("a cloaked user sees themselves, others do not, an admin does: the same request, three answers", async () => {
		const [member, hidden] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		await page(member);
		expect(
			(
				await plaza.admin("PUT", `/Internal/Users/${hidden.userId}`, {
					FirstName: "Hidden",
					LastName: "One",
					Cloaked: true,
				})
			).status,
		).toBe(200);
		expect(userIn((await page(member)).users, hidden.userId)).toBeUndefined();
		expect(userIn((await page(member)).users, hidden.userId)).toBeUndefined();
		// The cloaked user's own answer is theirs alone: asked of the service every time, never kept for others.
		for (let i = 0; i < 2; i++) {
			const own = await page(hidden);
			expect(own.asked).toBe(1);
			expect(userIn(own.users, hidden.userId)).toBeDefined();
		}
		expect(userIn((await page(member)).users, hidden.userId)).toBeUndefined();
		expect(userIn((await page("admin")).users, hidden.userId)).toBeDefined();
		expect((await page("admin")).asked).toBe(0);
		expect(
			(
				await plaza.admin("PUT", `/Internal/Users/${hidden.userId}`, {
					FirstName: "Hidden",
					LastName: "One",
					Cloaked: false,
				})
			).status,
		).toBe(200);
		expect(userIn((await page(member)).users, hidden.userId)).toBeDefined();
	});

	test("FindPost of a public post is kept for everyone until the post or a profile changes; a private post is never kept", async () => {
		const [author, reader, other, stranger] = await Promise.all([
			plaza.signUp(),
			plaza.signUp(),
			plaza.signUp(),
			plaza.signUp(),
		]);
		const post = (await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "kept" })).body;
		const find = async (who: Session, id = post.Id) => {
			calls.reset();
			const reply = await who.http("GET", `/Posts/${id}`);
			return { status: reply.status, post: reply.body, asked: calls.snapshot()["posts.find"] ?? 0 };
		};
		expect((await find(reader)).asked).toBe(1);
		expect((await find(reader)).asked).toBe(0);
		expect((await find(other)).asked).toBe(1);
		expect((await find(other)).asked).toBe(0);

		expect(
			(await reader.http("POST", `/Posts/${post.Id}/Comments`, { AuthorId: reader.userId, Content: "news" })).status,
		).toBe(200);
		const commented = await find(other);
		expect(commented.asked).toBe(1);
		expect((commented.post.Comments as Records).map(c => c.Content)).toEqual(["news"]);

		expect(
			(await author.http("PUT", `/Users/${author.userId}`, { FirstName: "Kept", LastName: "Author" })).status,
		).toBe(200);
		expect((await find(other)).post.AuthorDisplayName).toBe("Kept Author");

		const secret = (
			await author.http("POST", "/Posts", {
				AuthorId: author.userId,
				Content: "for one",
				IsPrivate: true,
				RecipientIds: [reader.userId],
			})
		).body;
		for (let i = 0; i < 2; i++) {
			const read = await find(reader, secret.Id);
			expect([read.status, read.asked]).toEqual([200, 1]);
		}
		expect((await find(stranger, secret.Id)).status).toBe(404);
	});

	test("a signed-out caller is refused even where an answer is kept", async () => {
		const member = await plaza.signUp();
		await page(member);
		await page(member);
		expect((await member.http("GET", "/auth/logout")).status).toBe(200);
		expect((await member.http("GET", "/Users?Limit=1000")).status).toBe(401);
		expect((await plaza.http("GET", "/Users?Limit=1000")).status).toBe(401);
	});
});

describeCluster("hot caches across nodes: two gateways and two posts nodes over NATS", () => {
	let cluster: TestCluster;
	let a: GatewayClient;
	let b: GatewayClient;
	const as = (who: { token: string }) => ({ "X-ss-id": who.token });

	/** Cache hits a node has counted so far (its probe port's /metrics). */
	const hits = async (node: string, cache: string) => {
		const text = await (await fetch(`http://127.0.0.1:${cluster.node(node).probePort}/metrics`)).text();
		return Number(new RegExp(`plaza_cache_hits_total\\{[^}]*cache="${cache}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0);
	};

	/** Sends `read` through gateway B until both posts nodes have answered it from their cache. */
	const cachedOnBothPostsNodes = async (cache: string, read: () => Promise<unknown>) => {
		const before = await Promise.all(["posts-a", "posts-b"].map(n => hits(n, cache)));
		for (let i = 0; i < 40; i++) {
			await read();
			const now = await Promise.all(["posts-a", "posts-b"].map(n => hits(n, cache)));
			if (now.every((h, j) => h > before[j])) return;
		}
		throw new Error(`The ${cache} cache was not hit on both posts nodes`);
	};

	beforeAll(async () => {
		cluster = await TestCluster.start();
		[a, b] = await cluster.startTwoGateways(["posts-a", "posts-b"]);
	}, 90_000);

	afterAll(() => cluster?.stop(), 60_000);

	test("signed out through gateway A, the token is refused at gateway B immediately", async () => {
		const user = await a.signUp("leaver");
		const before = await hits("gateway-b", "sessions");
		for (let i = 0; i < 2; i++) expect((await b.call("GET", "/auth", undefined, as(user))).status).toBe(200);
		expect(await hits("gateway-b", "sessions")).toBeGreaterThan(before);
		expect((await a.call("GET", "/auth/logout", undefined, as(user))).status).toBe(200);
		expect((await b.call("GET", "/auth", undefined, as(user))).status).toBe(401);
		expect((await b.call("GET", `/Users/${user.userId}`, undefined, as(user))).status).toBe(401);
	});

	test("under load, tokens signed out through A are each refused at B on the very next request", async () => {
		// One at a time: a gateway checks a few passwords at once and asks the rest to retry.
		const users: Array<{ userId: string; token: string }> = [];
		for (let i = 0; i < 24; i++) users.push(await a.signUp(`busy${i}`));
		const busy = await a.signUp("bystander");
		for (let round = 0; round < 2; round++)
			await Promise.all(
				users.map(async user => expect((await b.call("GET", "/auth", undefined, as(user))).status).toBe(200)),
			);
		// Gateway B is kept busy while the tokens end: the announcements reach it among other work.
		let loading = true;
		const load = Promise.all(
			Array.from({ length: 8 }, async () => {
				while (loading) await b.call("GET", `/Users/${busy.userId}`, undefined, as(busy));
			}),
		);
		const afterSignOut = await Promise.all(
			users.map(async user => {
				expect((await a.call("GET", "/auth/logout", undefined, as(user))).status).toBe(200);
				return (await b.call("GET", "/auth", undefined, as(user))).status;
			}),
		);
		loading = false;
		await load;
		expect(afterSignOut).toEqual(users.map(() => 401));
	});

	test("a profile updated through A shows through B at once: connections and a post's author", async () => {
		const [ann, bob] = await Promise.all([a.signUp("ann"), a.signUp("bob")]);
		expect(
			(await a.call("POST", "/Connections", { OwnerId: bob.userId, ConnectToId: ann.userId }, as(bob))).status,
		).toBe(200);
		const post = (await a.call("POST", "/Posts", { AuthorId: ann.userId, Content: "named" }, as(ann))).body;
		await a.call("POST", "/Posts", { AuthorId: ann.userId, Content: "newer" }, as(ann));
		// FindPost's answer and a feed's first page are kept at gateway B; a second page is asked of a posts node every
		// time.
		const feedThroughB = () => b.call("GET", `/Users/${ann.userId}/Feed?Offset=1`, undefined, as(ann));
		const names = async () => ({
			connection: (await b.call("GET", `/Users/${bob.userId}/Connections`, undefined, as(bob))).body[0].LastName,
			author: (await b.call("GET", `/Posts/${post.Id}`, undefined, as(bob))).body.AuthorDisplayName,
			inFeed: ((await feedThroughB()).body as unknown as Records)[0]?.AuthorDisplayName,
		});
		expect(await names()).toEqual({ connection: "Node", author: "ann Node", inFeed: "ann Node" });
		await cachedOnBothPostsNodes("profiles", feedThroughB);
		expect(
			(await a.call("PUT", `/Users/${ann.userId}`, { FirstName: "Ann", LastName: "Renamed" }, as(ann))).status,
		).toBe(200);
		for (let i = 0; i < 4; i++)
			expect(await names()).toEqual({ connection: "Renamed", author: "Ann Renamed", inFeed: "Ann Renamed" });
	});

	test("an AllUsers page kept at gateway B shows a profile updated and a connection made through A at once", async () => {
		const [ann, bob] = await Promise.all([a.signUp("pager"), a.signUp("paged")]);
		const annThroughB = async () => {
			const users = (await b.call("GET", "/Users?Limit=1000", undefined, as(bob))).body as unknown as Records;
			return users.find(u => u.Id === ann.userId);
		};
		expect((await annThroughB())?.LastName).toBe("Node");
		// Kept now, and the second answer comes from B's keeping (the same page, no change between).
		expect((await annThroughB())?.LastName).toBe("Node");
		expect((await a.call("PUT", `/Users/${ann.userId}`, { FirstName: "Ann", LastName: "Paged" }, as(ann))).status).toBe(
			200,
		);
		expect((await annThroughB())?.LastName).toBe("Paged");
		expect(
			(await a.call("POST", "/Connections", { OwnerId: ann.userId, ConnectToId: bob.userId }, as(ann))).status,
		).toBe(200);
		expect(((await annThroughB())?.Connections as Records).map(c => c.UserId)).toEqual([bob.userId]);
	});

	test("a post updated through A shows in B's FindPost at once, whichever posts node answers", async () => {
		const [author, reader] = await Promise.all([a.signUp("writer"), a.signUp("reader")]);
		const post = (await a.call("POST", "/Posts", { AuthorId: author.userId, Content: "will grow" }, as(author))).body;
		await a.call("POST", "/Posts", { AuthorId: author.userId, Content: "newer" }, as(author));
		// FindPost's answer and a feed's first page are kept at gateway B; a second page reaches a posts node (and its
		// cache) every time.
		const find = async () => (await b.call("GET", `/Posts/${post.Id}`, undefined, as(reader))).body;
		const inFeed = async () =>
			(
				(await b.call("GET", `/Users/${author.userId}/Feed?Offset=1`, undefined, as(author))).body as unknown as Records
			)[0];
		expect((await find()).Tags).toEqual([]);
		await cachedOnBothPostsNodes("posts", inFeed);
		expect((await a.call("POST", `/Posts/${post.Id}/Tags`, { Value: "late" }, as(author))).status).toBe(200);
		for (let i = 0; i < 4; i++) {
			expect(((await find()).Tags as Records).map(t => t.Value)).toEqual(["late"]);
			expect(((await inFeed()).Tags as Records).map(t => t.Value)).toEqual(["late"]);
		}
		expect(
			(await a.call("POST", `/Posts/${post.Id}/Comments`, { AuthorId: reader.userId, Content: "seen" }, as(reader)))
				.status,
		).toBe(200);
		for (let i = 0; i < 4; i++) {
			expect(((await find()).Comments as Records).map(c => c.Content)).toEqual(["seen"]);
			expect(((await inFeed()).Comments as Records).map(c => c.Content)).toEqual(["seen"]);
		}
	});

	test("a private post cached for its recipient at B is refused to a stranger at B, in FindPost, search and feed", async () => {
		const [author, recipient, stranger] = await Promise.all([
			a.signUp("author"),
			b.signUp("recipient"),
			b.signUp("stranger"),
		]);
		const post = (
			await a.call(
				"POST",
				"/Posts",
				{
					AuthorId: author.userId,
					Content: "private",
					IsPrivate: true,
					RecipientIds: [recipient.userId],
					Tags: ["nodesecret"],
				},
				as(author),
			)
		).body;
		await cachedOnBothPostsNodes("posts", () => b.call("GET", `/Posts/${post.Id}`, undefined, as(recipient)));
		expect(
			(await b.call("GET", "/Search/Posts?TagNames=nodesecret", undefined, as(recipient))).body.map(p => p.Id),
		).toEqual([post.Id]);
		for (let i = 0; i < 4; i++) {
			const refused = await b.call("GET", `/Posts/${post.Id}`, undefined, as(stranger));
			expect([refused.status, (refused.body as unknown as ErrorBody).ResponseStatus.ErrorCode]).toEqual([
				404,
				"NotFound",
			]);
		}
		expect((await b.call("GET", "/Search/Posts?TagNames=nodesecret", undefined, as(stranger))).body).toEqual([]);
		expect((await b.call("GET", `/Users/${stranger.userId}/Feed`, undefined, as(stranger))).body).toEqual([]);
	});

	test("a member added through A sees the network's private post through B at once", async () => {
		const [owner, joiner] = await Promise.all([a.signUp("owner"), b.signUp("joiner")]);
		const network = (await a.call("POST", "/Networks", { OwnerId: owner.userId, Name: "Club" }, as(owner))).body;
		const post = (
			await a.call(
				"POST",
				"/Posts",
				{ AuthorId: owner.userId, Content: "members", IsPrivate: true, RecipientIds: [network.Id] },
				as(owner),
			)
		).body;
		await cachedOnBothPostsNodes("audience", () => b.call("GET", `/Posts/${post.Id}`, undefined, as(joiner)));
		expect((await b.call("GET", `/Posts/${post.Id}`, undefined, as(joiner))).status).toBe(404);
		expect((await a.call("POST", `/Networks/${network.Id}/Members`, { UserId: joiner.userId }, as(owner))).status).toBe(
			200,
		);
		for (let i = 0; i < 4; i++)
			expect((await b.call("GET", `/Posts/${post.Id}`, undefined, as(joiner))).status).toBe(200);
	});
});
