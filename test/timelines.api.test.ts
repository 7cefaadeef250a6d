import { Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { call, soapClient } from "./support/soap";

process.env.PASSWORD_HASH_COST = "test";

type Records = WireRecord[];

/** Issue 34: home timelines written when a post is written, and a user's own timeline, through the gateway. */
describe("timelines", () => {
	let plaza: TestPlaza;
	let ann: Session;
	let bob: Session;
	let cat: Session;
	beforeAll(async () => {
		plaza = await startPlaza();
		[ann, bob, cat] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
	});
	afterAll(() => plaza.stop());

	const post = async (author: Session, fields: Record<string, unknown> = {}) =>
		(await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "hello", ...fields })).body;
	const home = async (reader: Session, query = "") =>
		((await reader.http<Records>("GET", `/Users/${reader.userId}/Feed?Limit=50${query}`)).body ?? []).map(p => p.Id);

	test("a connection brings the other's posts in, its removal takes them out, and a new post reaches the connected at once", async () => {
		const before = await post(bob, { Content: "before we met" });
		expect(await home(ann)).not.toContain(before.Id);
		const pair = (await ann.http<Records>("POST", "/Connections", { OwnerId: ann.userId, ConnectToId: bob.userId }))
			.body;
		expect(await home(ann)).toContain(before.Id);
		const after = await post(bob, { Content: "now we know each other" });
		expect((await home(ann)).slice(0, 2)).toEqual([after.Id, before.Id]);
		const mine = pair.find(c => c.OwnerId === ann.userId)!;
		expect((await ann.http("DELETE", `/Connections/${mine.Id}?OwnerId=${ann.userId}`)).status).toBe(200);
		expect(await home(ann)).not.toContain(after.Id);
		expect(await home(ann)).not.toContain(before.Id);
	});

	test("a post that reaches a reader through two sources (their own and their network's; a followed author's and a network's) is listed once", async () => {
		const [owner, member] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const club = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Twice", IsOpen: true })).body;
		expect((await member.http("POST", `/Networks/${String(club.Id)}/Members`, { UserId: member.userId })).status).toBe(
			200,
		);
		await member.http("POST", "/Subscriptions", { SubscriberId: member.userId, SubscribedToId: owner.userId });
		// Both timelines built first, so the post is pushed (an entry per source) rather than backfilled.
		await Promise.all([home(owner), home(member)]);
		const both = await post(owner, { ContextId: club.Id });
		expect(await home(owner)).toEqual([both.Id]);
		expect(await home(member)).toEqual([both.Id]);
	});

	test("a private post reaches its recipients' timelines only; a recipient added later gets it pushed; strangers get 404 on it", async () => {
		await home(cat); // cat's timeline is built: the push has somewhere to go
		const secret = await post(bob, { IsPrivate: true, Content: "for ann" });
		expect(await home(cat)).not.toContain(secret.Id);
		expect((await cat.http("GET", `/Posts/${secret.Id}`)).status).toBe(404);
		expect((await cat.http("GET", `/Users/${bob.userId}/Posts`)).body).not.toContainEqual(
			expect.objectContaining({ Id: secret.Id }),
		);
		expect((await bob.http("POST", `/Posts/${secret.Id}/Recipients`, { RecipientId: cat.userId })).status).toBe(200);
		expect(await home(cat)).toContain(secret.Id);
		expect((await cat.http<Records>("GET", `/Users/${bob.userId}/Posts`)).body.map(p => p.Id)).toContain(secret.Id);
		expect(await home(ann)).not.toContain(secret.Id);
	});

	test("UserPosts: what a user wrote that the caller may see, newest first, by Offset and AfterId, on every surface; 404 for no such user", async () => {
		const author = await plaza.signUp();
		const written = [];
		for (let i = 0; i < 5; i++) written.unshift((await post(author, { Content: `mine ${i}` })).Id);
		const hidden = await post(author, { IsPrivate: true, Content: "nobody's" });
		const rest = await cat.http<Records>("GET", `/Users/${author.userId}/Posts?Limit=3`);
		expect(rest.status).toBe(200);
		expect(rest.body.map(p => p.Id)).toEqual(written.slice(0, 3));
		expect(
			(await cat.http<Records>("GET", `/Users/${author.userId}/Posts?Limit=3&AfterId=${written[2]}`)).body.map(
				p => p.Id,
			),
		).toEqual(written.slice(3));
		expect(
			(
				await cat.http<Records>("POST", "/json/reply/UserPosts", { UserId: author.userId, Offset: 1, Limit: 2 })
			).body.map(p => p.Id),
		).toEqual(written.slice(1, 3));
		expect((await author.http<Records>("GET", `/Users/${author.userId}/Posts?Limit=1`)).body.map(p => p.Id)).toEqual([
			hidden.Id,
		]);
		// SOAP writes GUIDs with dashes, the JSON routes without.
		const soap = JSON.stringify(
			(await call(await soapClient(plaza, { "X-ss-id": cat.token }), "UserPosts", { UserId: author.userId, Limit: 2 }))
				.result,
		).replace(/-/g, "");
		expect(soap).toContain(written[0]);
		expect(soap).not.toContain(hidden.Id);
		expect((await cat.http("GET", "/Users/0123456789abcdef0123456789abcdef/Posts")).status).toBe(404);
		expect((await cat.http("GET", `/Users/${author.userId}/Posts?Limit=-1`)).status).toBe(400);
	});

	test("a timeline read past what it keeps is assembled, and every page agrees with the next", async () => {
		const reader = await plaza.signUp();
		const ids: string[] = [];
		for (let i = 0; i < 30; i++) ids.unshift((await post(reader, { Content: `own ${i}` })).Id);
		const pages: string[] = [];
		for (let offset = 0; offset < 30; offset += 7) pages.push(...(await home(reader, `&Offset=${offset}`)).slice(0, 7));
		expect(pages).toEqual(ids);
	});
});
