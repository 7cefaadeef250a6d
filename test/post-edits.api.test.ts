import { plazaForSuite, Session, WireRecord } from "./support/plaza";
import { adminHeaders } from "./support/access-wire";

type Records = WireRecord[];
const ms = (wireDate: unknown) => Number(/\((-?\d+)/.exec(String(wireDate))?.[1]);

/** Issue 38, item 1: one's posts and comments edited and deleted, gone from every read path at once. */
describe("editing and deleting posts and comments", () => {
	const {
		plaza,
		users: [author, follower, stranger],
	} = plazaForSuite({ users: [{ FirstName: "Ed", LastName: "Itor" }, {}, {}] });

	const post = async (who: Session, fields: Record<string, unknown> = {}) => {
		const made = await who.http("POST", "/Posts", { AuthorId: who.userId, Content: "first words", ...fields });
		expect(made.status).toBe(200);
		return made.body;
	};
	const feedIds = async (who: Session) =>
		((await who.http<Records>("GET", `/Users/${who.userId}/Feed`)).body ?? []).map(p => p.Id);

	beforeAll(async () => {
		const followed = await follower.http("POST", "/Subscriptions", {
			SubscriberId: follower.userId,
			SubscribedToId: author.userId,
		});
		expect(followed.status).toBe(200);
	});

	test("an edit keeps ContentCreatedTime, moves ContentUpdatedTime, adds an activity; only the author edits", async () => {
		const made = await post(author, { Url: "https://example.org/old" });
		await new Promise(resolve => setTimeout(resolve, 5));
		expect((await stranger.http("PUT", `/Posts/${made.Id}`, { Content: "not mine" })).status).toBe(403);
		const edited = await author.http("PUT", `/Posts/${made.Id}`, { Content: "better words", Url: "" });
		expect(edited.status).toBe(200);
		expect(edited.body).toMatchObject({ Id: made.Id, Content: "better words" });
		expect(edited.body.Url).toBeUndefined();
		expect(ms(edited.body.ContentCreatedTime)).toBe(ms(made.ContentCreatedTime));
		expect(ms(edited.body.ContentUpdatedTime)).toBeGreaterThan(ms(made.ContentUpdatedTime));
		expect((edited.body.Activities as Records).map(a => a.Message)).toContain("Ed Itor edited the post");
		// Every reader gets the edit at once, the kept answers too.
		expect((await follower.http("GET", `/Posts/${made.Id}`)).body.Content).toBe("better words");
		expect((await author.http("PUT", `/Posts/${made.Id}`, { Content: "" })).status).toBe(400);
	});

	test("a deleted post is gone from FindPost, the author's posts, tag search, a follower's kept feed and its comments", async () => {
		const tag = `gone${Date.now()}`;
		const made = await post(author, { Tags: [tag] });
		const comment = await follower.http("POST", `/Posts/${made.Id}/Comments`, {
			AuthorId: follower.userId,
			Content: "a reply",
		});
		expect(comment.status).toBe(200);
		// Read first, so that kept answers hold it.
		expect(await feedIds(follower)).toContain(made.Id);
		expect((await follower.http("GET", `/Posts/${made.Id}`)).status).toBe(200);
		const search = () => follower.http<Records>("GET", `/Search/Posts?TagNames=${tag}`);
		expect((await search()).body.map(p => p.Id)).toEqual([made.Id]);

		expect((await stranger.http("DELETE", `/Posts/${made.Id}`)).status).toBe(403);
		const deleted = await author.http("DELETE", `/Posts/${made.Id}`);
		expect([deleted.status, deleted.body.Id]).toEqual([200, made.Id]);

		expect((await follower.http("GET", `/Posts/${made.Id}`)).status).toBe(404);
		expect((await author.http("GET", `/Posts/${made.Id}`)).status).toBe(404);
		expect(await feedIds(follower)).not.toContain(made.Id);
		expect((await search()).body).toEqual([]);
		const own = await author.http<Records>("GET", `/Users/${author.userId}/Posts`);
		expect(own.body.map(p => p.Id)).not.toContain(made.Id);
		expect((await follower.http("GET", `/Comments/${comment.body.Id}`)).status).toBe(404);
		expect((await author.http("DELETE", `/Posts/${made.Id}`)).status).toBe(404);
	});

	test("a page of the feed stays full after a deletion: the follower's timeline lost the entry, not a slot", async () => {
		const made = [];
		for (let i = 0; i < 4; i++) made.push(await post(author, { Content: `page ${i}` }));
		const page = async () =>
			(await follower.http<Records>("GET", `/Users/${follower.userId}/Feed?Limit=3`)).body.map(p => p.Id);
		expect(await page()).toEqual([made[3].Id, made[2].Id, made[1].Id]);
		expect((await author.http("DELETE", `/Posts/${made[2].Id}`)).status).toBe(200);
		expect(await page()).toEqual([made[3].Id, made[1].Id, made[0].Id]);
	});

	test("a private post's deletion by a stranger is 404; an admin deletes anyone's", async () => {
		const secret = await post(author, { IsPrivate: true, RecipientIds: [follower.userId] });
		expect((await stranger.http("DELETE", `/Posts/${secret.Id}`)).status).toBe(404);
		expect((await follower.http("DELETE", `/Posts/${secret.Id}`)).status).toBe(403);
		expect((await follower.http("GET", `/Posts/${secret.Id}`)).status).toBe(200);
		const admin = await plaza.http("DELETE", `/Posts/${secret.Id}`, undefined, adminHeaders);
		expect(admin.status).toBe(200);
		expect((await follower.http("GET", `/Posts/${secret.Id}`)).status).toBe(404);
	});

	test("a comment is edited and deleted by its author alone; the post's record follows at once", async () => {
		const made = await post(author);
		const reply = (
			await follower.http("POST", `/Posts/${made.Id}/Comments`, { AuthorId: follower.userId, Content: "typo" })
		).body;
		expect((await author.http("PUT", `/Comments/${reply.Id}`, { Content: "not mine" })).status).toBe(403);
		const edited = await follower.http("PUT", `/Comments/${reply.Id}`, { Content: "fixed" });
		expect([edited.status, edited.body.Content]).toEqual([200, "fixed"]);
		const comments = async () => (await author.http("GET", `/Posts/${made.Id}`)).body.Comments as Records;
		expect((await comments()).map(c => c.Content)).toEqual(["fixed"]);
		expect((await author.http("DELETE", `/Comments/${reply.Id}`)).status).toBe(403);
		expect((await follower.http("DELETE", `/Comments/${reply.Id}`)).status).toBe(200);
		expect(await comments()).toEqual([]);
		expect((await follower.http("GET", `/Comments/${reply.Id}`)).status).toBe(404);
	});
});
