import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { CallCounter } from "./support/call-counter";
import { clearHeldCaches } from "../shared/cache/node-caches";

type Records = WireRecord[];
const ms = (wireDate: unknown) => Number(/\((-?\d+)/.exec(String(wireDate))?.[1]);

/** Whether posts are newest first; posts of one millisecond come by Id, descending (not in their order of creation). */
const newestFirst = (posts: Array<{ Id: string; CreatedTime?: unknown }>) => {
	const order = posts.map(p => [ms(p.CreatedTime), p.Id] as const);
	return (
		JSON.stringify(order) ===
		JSON.stringify([...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0)))
	);
};

describe("posts, recipients, tags and comments", () => {
	let plaza: TestPlaza;
	let author: Session;
	let reader: Session;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		[author, reader] = await Promise.all([
			plaza.signUp({ FirstName: "Ada", LastName: "Author", JobTitle: "Writer" }),
			plaza.signUp({ FirstName: "Rea", LastName: "Der" }),
		]);
		await author.http("PUT", `/Users/${author.userId}`, { FirstName: "Ada", LastName: "Author", JobTitle: "Writer" });
	});
	afterAll(() => plaza.stop());

	test("CreatePost by REST and the generic route; FindPost by both gives the same body", async () => {
		const created = await author.http("POST", "/Posts", {
			AuthorId: author.userId,
			Content: "Hello, Plaza",
			Tags: ["Intro", "hello"],
			Url: "https://example.org/a",
		});
		expect(created.status).toBe(200);
		expect(created.body).toMatchObject({
			IsPrivate: false,
			AuthorId: author.userId,
			AuthorType: "User",
			AuthorDisplayName: "Ada Author",
			AuthorTagline: "Writer",
			Content: "Hello, Plaza",
			MessageType: 0,
			Recipients: [],
			Comments: [],
			Activities: [],
			Tags: [
				expect.objectContaining({ PostId: created.body.Id, Value: "Intro", TagType: 0 }),
				expect.objectContaining({ Value: "hello" }),
			],
			PostTags: [expect.objectContaining({ Name: "Intro", TagTypeId: 0 }), expect.objectContaining({ Name: "hello" })],
			Url: "https://example.org/a",
		});
		const generic = await author.http("POST", "/json/reply/CreatePost", { AuthorId: author.userId, Content: "Second" });
		expect(generic.status).toBe(200);
		const rest = await reader.http("GET", `/Posts/${created.body.Id}`);
		const viaGeneric = await reader.http("POST", "/json/reply/FindPost", { Id: created.body.Id });
		expect(rest.status).toBe(200);
		expect(viaGeneric.text).toBe(rest.text);
		expect(rest.text).not.toMatch(/Audience|TagNames|ExpiresAt/);
	});

	test("posting as someone else is 403; bad recipients are a 400; nothing is written", async () => {
		const before = await plaza.count("posts", "posts");
		expect((await reader.http("POST", "/Posts", { AuthorId: author.userId, Content: "Forged" })).status).toBe(403);
		const bad = await author.http<ErrorBody>("POST", "/Posts", {
			AuthorId: author.userId,
			Content: "To nobody",
			RecipientIds: ["0f8fad5bd9cb469fa16570867728950e"],
		});
		expect(bad.status).toBe(400);
		expect(bad.body.ResponseStatus.Errors[0].FieldName).toBe("RecipientIds");
		expect((await author.http("POST", "/Posts", { AuthorId: author.userId })).status).toBe(400);
		expect(await plaza.count("posts", "posts")).toBe(before);
	});

	test("comments come back in ascending ContentCreatedTime, also when created out of order, by both routes", async () => {
		const post = (await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "Discuss" })).body;
		const times = ["2024-01-03T00:00:00Z", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"];
		const first = await reader.http("POST", `/Posts/${post.Id}/Comments`, {
			AuthorId: reader.userId,
			Content: "third",
			CreatedTime: times[0],
		});
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({
			PostId: post.Id,
			AuthorId: reader.userId,
			AuthorType: "User",
			AuthorDisplayName: "Rea Der",
			Content: "third",
			ContentCreatedTime: "/Date(1704240000000+0000)/",
		});
		expect(
			(
				await reader.http("POST", "/Comments", {
					PostId: post.Id,
					AuthorId: reader.userId,
					Content: "first",
					CreatedTime: times[1],
				})
			).status,
		).toBe(200);
		expect(
			(
				await author.http("POST", "/json/reply/CreateComment", {
					PostId: post.Id,
					AuthorId: author.userId,
					Content: "second",
					CreatedTime: "/Date(1704153600000)/",
				})
			).status,
		).toBe(200);

		const found = await reader.http("GET", `/Posts/${post.Id}`);
		expect((found.body.Comments as Records).map(c => c.Content)).toEqual(["first", "second", "third"]);
		expect((found.body.Activities as Records).map(a => a.Message)).toEqual([
			"Rea Der commented",
			"Rea Der commented",
			"Ada Author commented",
		]);
		const listed = await reader.http<Records>("GET", `/Posts/${post.Id}/Comments`);
		expect(listed.body.map(c => c.Content)).toEqual(["first", "second", "third"]);
		const one = await reader.http("GET", `/Comments/${first.body.Id}`);
		expect(one.body).toEqual(first.body);
		expect((await reader.http("POST", "/json/reply/FindComment", { Id: first.body.Id })).text).toBe(one.text);
		expect(
			(await reader.http("POST", `/Posts/${post.Id}/Comments`, { AuthorId: author.userId, Content: "forged" })).status,
		).toBe(403);
		expect((await reader.http("GET", "/Comments/0f8fad5bd9cb469fa16570867728950e")).status).toBe(404);
	});

	test("tags and recipients: the author adds them (once), others may not; activities record it", async () => {
		const post = (await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "Tag me" })).body;
		const tag = await author.http("POST", `/Posts/${post.Id}/Tags`, { Value: "News", TagType: 2 });
		expect(tag.status).toBe(200);
		expect(tag.body).toMatchObject({ PostId: post.Id, Value: "News", TagType: 2 });
		const again = await author.http("POST", "/json/reply/CreateTag", { PostId: post.Id, Value: "news" });
		expect(again.body.Id).toBe(tag.body.Id);
		expect((await reader.http("POST", `/Posts/${post.Id}/Tags`, { Value: "Spam" })).status).toBe(403);

		const recipient = await author.http("POST", `/Posts/${post.Id}/Recipients`, { RecipientId: reader.userId });
		expect(recipient.status).toBe(200);
		expect(recipient.body).toEqual({ Id: reader.userId, ParticipantType: "User", DisplayName: "Rea Der" });
		expect(
			(await author.http("POST", "/json/reply/CreatePostRecipient", { PostId: post.Id, RecipientId: reader.userId }))
				.status,
		).toBe(200);
		expect((await reader.http("POST", `/Posts/${post.Id}/Recipients`, { RecipientId: reader.userId })).status).toBe(
			403,
		);
		expect(
			(await author.http("POST", `/Posts/${post.Id}/Recipients`, { RecipientId: "0f8fad5bd9cb469fa16570867728950e" }))
				.status,
		).toBe(404);

		const recipients = await reader.http<Records>("GET", `/Posts/${post.Id}/Recipients`);
		expect(recipients.body).toEqual([recipient.body]);
		expect((await reader.http<Records>("POST", "/json/reply/AllPostRecipients", { Id: post.Id })).body).toEqual([
			recipient.body,
		]);
		const found = await reader.http("GET", `/Posts/${post.Id}`);
		expect((found.body.Activities as Records).map(a => a.Message)).toEqual(["Tagged News", "Rea Der was added"]);
		expect((found.body.Tags as Records).map(t => t.Value)).toEqual(["News"]);
	});

	test("a post carries its latest 20 activities; PostActivities pages through all of them, by Offset and by AfterId", async () => {
		const post = (await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "Busy" })).body;
		for (let i = 0; i < 25; i++)
			expect((await author.http("POST", `/Posts/${post.Id}/Tags`, { Value: `t${i}` })).status).toBe(200);
		const found = await reader.http("GET", `/Posts/${post.Id}`);
		expect((found.body.Activities as Records).map(a => a.Message)).toEqual(
			Array.from({ length: 20 }, (_, i) => `Tagged t${i + 5}`),
		);
		const all = await reader.http<Records>("GET", `/Posts/${post.Id}/Activities?Limit=100`);
		expect(all.body.map(a => a.Message)).toEqual(Array.from({ length: 25 }, (_, i) => `Tagged t${i}`));
		expect(all.body[0]).toMatchObject({ PostId: post.Id, Message: "Tagged t0" });
		const second = await reader.http<Records>("GET", `/Posts/${post.Id}/Activities?Offset=10&Limit=10`);
		const afterCursor = await reader.http<Records>("POST", "/json/reply/PostActivities", {
			PostId: post.Id,
			AfterId: all.body[9].Id,
			Limit: 10,
		});
		expect(afterCursor.text).toBe(second.text);
		expect(
			(await reader.http<ErrorBody>("GET", `/Posts/${post.Id}/Activities?AfterId=0f8fad5bd9cb469fa16570867728950e`))
				.status,
		).toBe(400);
	});
});

describe("private posts exist only for their audience", () => {
	let plaza: TestPlaza;
	let author: Session;
	let direct: Session;
	let member: Session;
	let outsider: Session;
	let networkId: string;
	let postId: string;
	let commentId: string;

	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		[author, direct, member, outsider] = await Promise.all([
			plaza.signUp(),
			plaza.signUp(),
			plaza.signUp(),
			plaza.signUp(),
		]);
		networkId = (await author.http("POST", "/Networks", { OwnerId: author.userId, Name: "Inner circle", IsOpen: true }))
			.body.Id;
		await member.http("POST", `/Networks/${networkId}/Members`, { UserId: member.userId });
		const post = await author.http("POST", "/Posts", {
			AuthorId: author.userId,
			Content: "For your eyes only",
			IsPrivate: true,
			RecipientIds: [direct.userId],
			Tags: ["secret"],
		});
		postId = post.body.Id;
		await author.http("POST", `/Posts/${postId}/NetworkRecipients`, { NetworkId: networkId });
		commentId = (await direct.http("POST", `/Posts/${postId}/Comments`, { AuthorId: direct.userId, Content: "seen" }))
			.body.Id;
	});
	afterAll(() => plaza.stop());

	test("the author, a direct recipient, a member of a recipient network and an admin see it everywhere", async () => {
		for (const viewer of [author, direct, member]) {
			expect((await viewer.http("GET", `/Posts/${postId}`)).status).toBe(200);
			expect((await viewer.http<Records>("GET", "/Search/Posts?TagNames=secret")).body.map(p => p.Id)).toEqual([
				postId,
			]);
			expect((await viewer.http("GET", `/Comments/${commentId}`)).status).toBe(200);
			expect(
				(await viewer.http<Records>("GET", `/Posts/${postId}/Recipients`)).body.map(r => r.ParticipantType),
			).toEqual(["User", "Network"]);
		}
		expect((await plaza.admin("GET", `/Posts/${postId}`)).status).toBe(200);
		expect(
			(await member.http("POST", `/Posts/${postId}/Comments`, { AuthorId: member.userId, Content: "me too" })).status,
		).toBe(200);
	});

	test("for anyone else it does not exist: 404 on find, absent from search, comments and recipients refused", async () => {
		const commentsBefore = await plaza.count("posts", "comments");
		const find = await outsider.http<ErrorBody>("GET", `/Posts/${postId}`);
		expect(find.status).toBe(404);
		expect(find.body.ResponseStatus.ErrorCode).toBe("NotFound");
		expect((await outsider.http<Records>("GET", "/Search/Posts?TagNames=secret")).body).toEqual([]);
		expect((await outsider.http<Records>("GET", "/Search/Posts")).body.map(p => p.Id)).not.toContain(postId);
		expect(
			(await outsider.http("POST", `/Posts/${postId}/Comments`, { AuthorId: outsider.userId, Content: "let me in" }))
				.status,
		).toBe(404);
		expect((await outsider.http("GET", `/Comments/${commentId}`)).status).toBe(404);
		expect((await outsider.http("GET", `/Posts/${postId}/Comments`)).status).toBe(404);
		expect((await outsider.http("GET", `/Posts/${postId}/Recipients`)).status).toBe(404);
		expect((await outsider.http("GET", `/Posts/${postId}/Activities`)).status).toBe(404);
		expect((await outsider.http("POST", `/Posts/${postId}/Tags`, { Value: "x" })).status).toBe(404);
		expect(await plaza.count("posts", "comments")).toBe(commentsBefore);
	});

	test("joining a recipient network opens the post", async () => {
		expect((await outsider.http("GET", `/Posts/${postId}`)).status).toBe(404);
		await outsider.http("POST", `/Networks/${networkId}/Members`, { UserId: outsider.userId });
		expect((await outsider.http("GET", `/Posts/${postId}`)).status).toBe(200);
	});
});

describe("SearchPostsByTag", () => {
	let plaza: TestPlaza;
	let author: Session;
	let contextId: string;
	const tagged: string[] = [];
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		author = await plaza.signUp();
		contextId = (await author.http("POST", "/Networks", { OwnerId: author.userId, Name: "Context" })).body.Id;
		for (let i = 0; i < 45; i++) {
			const tags = i % 3 === 0 ? ["alpha"] : i % 3 === 1 ? ["beta", "other"] : ["gamma"];
			const reply = await author.http("POST", "/Posts", {
				AuthorId: author.userId,
				Content: `post ${i}`,
				Tags: tags,
				ContextId: i % 2 ? contextId : undefined,
			});
			if (!tags.includes("gamma")) tagged.push(reply.body.Id);
		}
	});
	afterAll(() => plaza.stop());

	test("any of the comma-separated names, any case, newest first", async () => {
		const reply = await author.http<Records>("GET", "/Search/Posts?TagNames=ALPHA, beta&Limit=100");
		expect([...reply.body.map(p => p.Id)].sort()).toEqual([...tagged].sort());
		expect(newestFirst(reply.body)).toBe(true);
		const generic = await author.http<Records>("POST", "/json/reply/SearchPostsByTag", {
			TagNames: "alpha,beta",
			Limit: 100,
		});
		expect(generic.text).toBe(reply.text);
	});

	test("ContextId and AuthorType filter", async () => {
		const inContext = await author.http<Records>(
			"GET",
			`/Search/Posts?TagNames=alpha,beta,gamma&ContextId=${contextId}&Limit=100`,
		);
		expect(inContext.body).toHaveLength(22);
		expect(inContext.body.every(p => p.ContextId === contextId)).toBe(true);
		expect((await author.http<Records>("GET", "/Search/Posts?TagNames=alpha&AuthorType=User")).body).toHaveLength(15);
		expect((await author.http<Records>("GET", "/Search/Posts?TagNames=alpha&AuthorType=Venue")).body).toEqual([]);
	});

	test("pages have no gaps or duplicates", async () => {
		const seen: string[] = [];
		for (let offset = 0; offset < 60; offset += 7) {
			seen.push(
				...(await author.http<Records>("GET", `/Search/Posts?TagNames=alpha,beta&Offset=${offset}&Limit=7`)).body.map(
					p => p.Id,
				),
			);
		}
		const whole = (await author.http<Records>("GET", "/Search/Posts?TagNames=alpha,beta&Limit=100")).body.map(
			p => p.Id,
		);
		expect(seen).toEqual(whole);
		expect([...seen].sort()).toEqual([...tagged].sort());
	});

	test("a page costs the same calls for 5 posts as for 50", async () => {
		const counter = new CallCounter();
		const counted = await startPlaza({ services: ["posts"] }, [counter.middleware]);
		try {
			const [writer, commenter] = await Promise.all([counted.signUp(), counted.signUp()]);
			const network = (await writer.http("POST", "/Networks", { OwnerId: writer.userId, Name: "N" })).body.Id;
			for (let i = 0; i < 50; i++) {
				const post = (
					await writer.http("POST", "/Posts", {
						AuthorId: writer.userId,
						Content: `p${i}`,
						Tags: ["t"],
						RecipientIds: [commenter.userId, network],
						ContextId: network,
					})
				).body;
				await commenter.http("POST", `/Posts/${post.Id}/Comments`, { AuthorId: commenter.userId, Content: "c" });
			}
			const page = async (limit: number) => {
				counter.reset();
				clearHeldCaches(counted.broker); // the cost of a cold page: nothing cached yet
				const reply = await commenter.http<Records>("GET", `/Search/Posts?TagNames=t&Limit=${limit}`);
				expect(reply.body).toHaveLength(limit);
				expect(reply.body[0].Comments).toHaveLength(1);
				return counter.snapshot();
			};
			const small = await page(5);
			expect(await page(50)).toEqual(small);
			// Identification, the search itself, the viewer's networks, then names of users and of networks.
			expect(small).toEqual({
				"graph.audienceOf": 1,
				"graph.networksByIds": 1,
				"posts.searchByTag": 1,
				"sessions.resolve": 1,
				"users.profiles": 1,
			});
		} finally {
			await counted.stop();
		}
	});
});

describe("a user's feed", () => {
	test("shows one's own posts, public posts of connections, subscriptions and networks, and posts addressed to one; newest first", async () => {
		const plaza = await startPlaza({ services: ["posts"] });
		try {
			const [me, friend, star, stranger, networkOwner] = await Promise.all(
				Array.from({ length: 5 }, () => plaza.signUp()),
			);
			await me.http("POST", "/Connections", { OwnerId: me.userId, ConnectToId: friend.userId });
			await me.http("POST", "/Subscriptions", { SubscriberId: me.userId, SubscribedToId: star.userId });
			const network = (
				await networkOwner.http("POST", "/Networks", { OwnerId: networkOwner.userId, Name: "Club", IsOpen: true })
			).body.Id;
			await me.http("POST", `/Networks/${network}/Members`, { UserId: me.userId });
			const post = async (who: Session, fields: Record<string, unknown>) =>
				(await who.http("POST", "/Posts", { AuthorId: who.userId, Content: "x", ...fields })).body.Id;
			const expected = [
				await post(me, {}),
				await post(friend, {}),
				await post(star, {}),
				await post(networkOwner, { ContextId: network }),
				await post(stranger, { IsPrivate: true, RecipientIds: [me.userId] }),
				await post(networkOwner, { IsPrivate: true, RecipientIds: [network] }),
			];
			await post(stranger, {}); // a stranger's public post
			await post(friend, { IsPrivate: true }); // a friend's private post for nobody
			await stranger.http("POST", `/Networks/${network}/Members`, { UserId: stranger.userId }); // a post's context must be the author's
			await post(stranger, { ContextId: network, IsPrivate: true }); // private, in my network's context but not addressed
			const feed = await me.http<Records>("GET", `/Users/${me.userId}/Feed`);
			expect(feed.status).toBe(200);
			expect([...feed.body.map(p => p.Id)].sort()).toEqual([...expected].sort());
			expect(newestFirst(feed.body)).toBe(true);
			expect((await friend.http("GET", `/Users/${me.userId}/Feed`)).status).toBe(403);
			expect((await me.http<Records>("POST", "/json/reply/UserFeed", { UserId: me.userId })).body).toHaveLength(6);
		} finally {
			await plaza.stop();
		}
	});
});
