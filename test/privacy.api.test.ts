import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { call, soapClient } from "./support/soap";

// Hundreds of sign-ups: the cheap hash cost that only tests may choose (credentials.api.test.ts checks the real one).
process.env.PASSWORD_HASH_COST = "test";

type Records = WireRecord[];

/** PRODUCT.md §3 (issue 13, item 4): user names, e-mail addresses, closed networks, post contexts. */
describe("accounts and privacy", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterAll(() => plaza.stop());

	const unique = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

	describe("user names and e-mail addresses", () => {
		test("a user name with @ is a 400 field error on UserName wherever an account is made, and nothing is created", async () => {
			const before = await plaza.count("users", "users");
			const registration = await plaza.http<ErrorBody>("POST", "/register", {
				UserName: `someone${unique()}@example.org`,
				Password: "long enough password",
			});
			const created = await plaza.admin<ErrorBody>("POST", "/Users", {
				FirstName: "At",
				LastName: "Sign",
				UserName: "at@sign",
			});
			const host = await plaza.signUp();
			const reservation = (await host.http("POST", "/Reservations", { Email: `invitee${unique()}@example.org` })).body;
			const converted = await plaza.http<ErrorBody>("POST", `/Reservations/${reservation.Id}/Convert`, {
				UserName: "guest@example.org",
				Password: "welcome aboard",
			});
			for (const reply of [registration, created, converted]) {
				expect(reply.status).toBe(400);
				expect(reply.body.ResponseStatus.Errors).toEqual([expect.objectContaining({ FieldName: "UserName" })]);
			}
			expect(await plaza.count("users", "users")).toBe(before + 1); // the host only
		});

		test("nobody takes over another's e-mail sign-in with a user name equal to their address", async () => {
			const email = `victim${unique()}@example.org`;
			const victim = await plaza.signUp({ Email: email });
			const squatter = await plaza.http<ErrorBody>("POST", "/register", {
				UserName: email.toUpperCase(),
				Password: "squatters password",
			});
			expect(squatter.status).toBe(400);
			const signIn = await plaza.http<{ UserId: string }>("POST", "/auth/credentials", {
				UserName: email,
				Password: victim.password,
			});
			expect(signIn.status).toBe(200);
			expect(signIn.body.UserId).toBe(victim.userId);
		});

		test("an e-mail address belongs to one account only, whatever its case: 409 AlreadyExists on Email", async () => {
			const email = `once${unique()}@example.org`;
			await plaza.signUp({ Email: email });
			const before = await plaza.count("users", "users");
			const again = await plaza.http<ErrorBody>("POST", "/register", {
				UserName: `second${unique()}`,
				Email: email.toUpperCase(),
				Password: "another password",
			});
			expect(again.status).toBe(409);
			expect(again.body.ResponseStatus.Errors).toEqual([
				expect.objectContaining({ ErrorCode: "AlreadyExists", FieldName: "Email" }),
			]);
			expect(await plaza.count("users", "users")).toBe(before);
		});
	});

	describe("a user's Email is written only to that user and to admins", () => {
		let ann: Session;
		let bob: Session;
		let annEmail: string;
		let bobEmail: string;
		beforeAll(async () => {
			annEmail = `ann${unique()}@example.org`;
			bobEmail = `bob${unique()}@example.org`;
			ann = await plaza.signUp({ Email: annEmail });
			bob = await plaza.signUp({ Email: bobEmail });
		});

		test("FindUser: another's record has no Email; one's own has; an admin sees it", async () => {
			const byOther = await bob.http("GET", `/Users/${ann.userId}`);
			expect(byOther.status).toBe(200);
			expect(byOther.body.Email).toBeUndefined();
			expect(byOther.text).not.toContain(annEmail);
			expect((await ann.http("GET", `/Users/${ann.userId}`)).body.Email).toBe(annEmail);
			expect((await plaza.admin("GET", `/Users/${ann.userId}`)).body.Email).toBe(annEmail);
		});

		test("AllUsers: no Email but to admins (one's own is in FindUser), so that every member shares one kept page", async () => {
			const byBob = await bob.http<Records>("GET", "/Users?Limit=1000");
			expect(byBob.body.find(u => u.Id === ann.userId)?.Email).toBeUndefined();
			expect(byBob.body.find(u => u.Id === bob.userId)?.Email).toBeUndefined();
			expect(byBob.text).not.toContain(annEmail);
			const byAdmin = await plaza.admin<Records>("GET", "/Users?Limit=1000");
			expect(byAdmin.body.find(u => u.Id === ann.userId)?.Email).toBe(annEmail);
			expect(byAdmin.body.find(u => u.Id === bob.userId)?.Email).toBe(bobEmail);
		});

		test("the gateway's kept AllUsers answer never hands one caller's addresses to another", async () => {
			const plain = [await plaza.signUp(), await plaza.signUp()];
			// Callers in turn, the same page each time: whoever read it first, nobody sees an address.
			for (const caller of [ann, plain[0], bob, plain[1], ann, bob, plain[0]]) {
				const page = await caller.http<Records>("GET", "/Users?Limit=1000");
				expect(page.status).toBe(200);
				expect(page.body.filter(u => u.Email !== undefined)).toEqual([]);
			}
			// And an admin's kept answer is for admins only.
			await plaza.admin("GET", "/Users?Limit=1000");
			expect((await plain[1].http("GET", "/Users?Limit=1000")).text).not.toMatch(/@example\.org/);
		});

		test("SOAP's FindUser follows the same rule", async () => {
			const client = await soapClient(plaza, { "X-ss-id": bob.token });
			const { result } = await call<{ User: { Id: string; Email?: string } }>(client, "FindUser", { Id: ann.userId });
			expect(result.User.Id.replace(/-/g, "")).toBe(ann.userId);
			expect(result.User.Email).toBeUndefined();
			expect(JSON.stringify(result)).not.toContain(annEmail);
			const own = await call<{ User: { Email?: string } }>(
				await soapClient(plaza, { "X-ss-id": ann.token }),
				"FindUser",
				{ Id: ann.userId },
			);
			expect(own.result.User.Email).toBe(annEmail);
		});
	});

	describe("networks are closed unless created open", () => {
		test("a stranger cannot add themselves to a closed network (403); its owner adds them (200); anyone joins an open one", async () => {
			const [owner, stranger, joiner] = [await plaza.signUp(), await plaza.signUp(), await plaza.signUp()];
			const closed = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Closed club" })).body;
			const refused = await stranger.http<ErrorBody>("POST", `/Networks/${closed.Id}/Members`, {
				UserId: stranger.userId,
			});
			expect(refused.status).toBe(403);
			expect((await owner.http("GET", `/Networks/${closed.Id}`)).body.NumberOfMembers).toBe(1);
			expect((await owner.http("POST", `/Networks/${closed.Id}/Members`, { UserId: stranger.userId })).status).toBe(
				200,
			);
			// A member of a closed network still adds nobody but is added.
			expect((await stranger.http("POST", `/Networks/${closed.Id}/Members`, { UserId: joiner.userId })).status).toBe(
				403,
			);

			const open = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Open club", IsOpen: true }))
				.body;
			expect((await joiner.http("POST", `/Networks/${open.Id}/Members`, { UserId: joiner.userId })).status).toBe(200);
			expect((await joiner.http("POST", `/Networks/${open.Id}/Members`, { UserId: stranger.userId })).status).toBe(403);
			expect((await owner.http("GET", `/Networks/${open.Id}`)).body.NumberOfMembers).toBe(2);
			expect(Number((await plaza.stored("graph").find("networks", { id: open.Id }))?.is_open)).toBe(1);
		});

		test("a private post addressed to a closed network stays out of a stranger's reach (404), joining refused", async () => {
			const [owner, stranger] = [await plaza.signUp(), await plaza.signUp()];
			const network = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Secret society" })).body;
			const post = (
				await owner.http("POST", "/Posts", {
					AuthorId: owner.userId,
					Content: "members only",
					IsPrivate: true,
					RecipientIds: [network.Id],
				})
			).body;
			expect((await stranger.http("POST", `/Networks/${network.Id}/Members`, { UserId: stranger.userId })).status).toBe(
				403,
			);
			expect((await stranger.http("GET", `/Posts/${post.Id}`)).status).toBe(404);
			expect((await owner.http("GET", `/Posts/${post.Id}`)).status).toBe(200);
		});
	});

	describe("a post's ContextId must be the author's own", () => {
		let author: Session;
		let other: Session;
		beforeAll(async () => {
			[author, other] = [await plaza.signUp(), await plaza.signUp()];
		});
		const post = (contextId: string) =>
			author.http<ErrorBody>("POST", "/Posts", {
				AuthorId: author.userId,
				Content: "in context",
				ContextId: contextId,
			});

		test("another's network, a user one is not connected to, another's venue or an unknown id: 403, nothing written", async () => {
			const network = (await other.http("POST", "/Networks", { OwnerId: other.userId, Name: "Not yours" })).body;
			const venue = (await other.http("POST", "/Venues", { OwnerId: other.userId, Name: "Not your venue" })).body;
			const before = await plaza.count("posts", "posts");
			for (const contextId of [network.Id, other.userId, venue.Id, "0f8fad5bd9cb469fa16570867728950e"]) {
				const reply = await post(contextId);
				expect(reply.status).toBe(403);
				expect(reply.body.ResponseStatus.ErrorCode).toBe("Forbidden");
			}
			expect(await plaza.count("posts", "posts")).toBe(before);
		});

		test("oneself, one's own network or venue, a network one joined, a user one is connected to: 200", async () => {
			const mine = (await author.http("POST", "/Networks", { OwnerId: author.userId, Name: "Mine" })).body;
			const joined = (await other.http("POST", "/Networks", { OwnerId: other.userId, Name: "Joined", IsOpen: true }))
				.body;
			expect((await author.http("POST", `/Networks/${joined.Id}/Members`, { UserId: author.userId })).status).toBe(200);
			const venue = (await author.http("POST", "/Venues", { OwnerId: author.userId, Name: "My venue" })).body;
			const friend = await plaza.signUp();
			expect(
				(await author.http("POST", "/Connections", { OwnerId: author.userId, ConnectToId: friend.userId })).status,
			).toBe(200);
			for (const contextId of [author.userId, mine.Id, joined.Id, venue.Id, friend.userId]) {
				const reply = await post(contextId);
				expect([contextId, reply.status]).toEqual([contextId, 200]);
				expect((reply.body as unknown as WireRecord).ContextId).toBe(contextId);
			}
		});
	});
});
