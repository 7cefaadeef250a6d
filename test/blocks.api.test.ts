/**
 * Issue 38, item 2: block and mute, through the real gateway on REST, the generic route and SOAP. A block (either way)
 * hides each other's posts and comments in every read path, kept answers included, refuses new ties and mentions, and
 * ends the existing ones; a mute keeps the muted user's posts off the muter's home timeline only. Runs on every engine
 * (api-on-postgres, api-on-mongo).
 */
import { catalogue } from "../shared/catalogue";
import { plazaForSuite, Session, WireRecord } from "./support/plaza";
import { recordsSnapshot } from "./support/access-records";
import { AccessSurface, sendOn, sessionHeaders } from "./support/access-wire";
import { gifData } from "./support/access-rows";

type Records = WireRecord[];
const op = (name: string) => catalogue.find(o => o.name === name)!;
/** Ids as the text of any surface holds them (SOAP writes GUIDs with dashes). */
const holds = (text: string, id: unknown) => text.replace(/-/g, "").toLowerCase().includes(String(id).toLowerCase());

describe("blocks: each hides the other's posts and comments everywhere, and no new tie forms", () => {
	const {
		plaza,
		users: [blocker, blocked, bystander],
	} = plazaForSuite({
		users: [{ FirstName: "Bea", LastName: "Blocker" }, { FirstName: "Bo", LastName: "Blocked" }, {}],
	});
	const tag = `blk${Date.now()}`;
	/** A post by each side and by the bystander, and each side's comment on the bystander's post. */
	let byBlocker: WireRecord;
	let byBlocked: WireRecord;
	let bystanders: WireRecord;
	let blockerComment: WireRecord;
	let blockedComment: WireRecord;
	/** The blocked one's reply on the blocker's own post, from before the block. */
	let reply: WireRecord;
	let network: WireRecord;
	/** A picture each side attached to their post. */
	let blockerPicture: WireRecord;
	let blockedPicture: WireRecord;

	const ok = async (sent: Promise<{ status: number; text: string; body: WireRecord }>) => {
		const done = await sent;
		if (done.status !== 200) throw new Error(`${done.status} ${done.text}`);
		return done.body;
	};
	const post = (who: Session, fields: Record<string, unknown> = {}) =>
		ok(who.http("POST", "/Posts", { AuthorId: who.userId, Content: "words", Tags: [tag], ...fields }));
	const comment = (who: Session, postId: unknown, Content: string) =>
		ok(who.http("POST", `/Posts/${String(postId)}/Comments`, { AuthorId: who.userId, Content }));

	beforeAll(async () => {
		network = await ok(blocker.http("POST", "/Networks", { OwnerId: blocker.userId, Name: "Both in", IsOpen: true }));
		for (const who of [blocked, bystander])
			await ok(who.http("POST", `/Networks/${String(network.Id)}/Members`, { UserId: who.userId }));
		await ok(blocker.http("POST", "/Connections", { OwnerId: blocker.userId, ConnectToId: blocked.userId }));
		for (const [who, whom] of [
			[blocker, blocked],
			[blocked, blocker],
		])
			await ok(who.http("POST", "/Subscriptions", { SubscriberId: who.userId, SubscribedToId: whom.userId }));
		byBlocker = await post(blocker, { ContextId: network.Id });
		byBlocked = await post(blocked, { ContextId: network.Id });
		bystanders = await post(bystander, { ContextId: network.Id });
		blockerComment = await comment(blocker, bystanders.Id, "the blocker's comment");
		blockedComment = await comment(blocked, bystanders.Id, "the blocked one's comment");
		reply = await comment(blocked, byBlocker.Id, "the blocked one's reply");
		const picture = (who: Session, postId: unknown) =>
			ok(
				who.http("POST", "/Pictures", { OwnerId: who.userId, PostId: postId, ContentType: "image/gif", Data: gifData }),
			);
		blockerPicture = await picture(blocker, byBlocker.Id);
		blockedPicture = await picture(blocked, byBlocked.Id);
		// Read before the block, so that kept answers and built timelines hold what it must hide.
		for (const who of [blocker, blocked]) {
			expect((await who.http("GET", `/Posts/${String(byBlocker.Id)}`)).status).toBe(200);
			expect((await who.http("GET", `/Posts/${String(byBlocked.Id)}`)).status).toBe(200);
			const feed = (await who.http<Records>("GET", `/Users/${who.userId}/Feed`)).body.map(p => p.Id);
			expect(feed).toEqual(expect.arrayContaining([byBlocker.Id, byBlocked.Id]));
		}

		const block = await blocker.http("POST", "/Blocks", { OwnerId: blocker.userId, BlockedId: blocked.userId });
		expect(block.status).toBe(200);
		expect(block.body).toMatchObject({
			OwnerId: blocker.userId,
			BlockedId: blocked.userId,
			FirstName: "Bo",
			LastName: "Blocked",
		});
	});

	test("the block ends their connection (both sides) and their subscriptions to each other; blocking again changes nothing", async () => {
		for (const who of [blocker, blocked]) {
			expect((await who.http<Records>("GET", `/Users/${who.userId}/Connections`)).body).toEqual([]);
			expect((await who.http<Records>("GET", `/Users/${who.userId}/Subscriptions`)).body).toEqual([]);
		}
		const before = await recordsSnapshot(plaza);
		const again = await blocker.http("POST", "/Blocks", { OwnerId: blocker.userId, BlockedId: blocked.userId });
		expect(again.status).toBe(200);
		expect(await recordsSnapshot(plaza)).toEqual(before);
		const listed = await blocker.http<Records>("GET", `/Users/${blocker.userId}/Blocks`);
		expect(listed.body).toEqual([expect.objectContaining({ BlockedId: blocked.userId })]);
		// One's blocks are one's own: nobody else lists them.
		expect((await blocked.http("GET", `/Users/${blocker.userId}/Blocks`)).status).toBe(403);
		expect((await blocked.http<Records>("GET", `/Users/${blocked.userId}/Blocks`)).body).toEqual([]);
	});

	test("bad blocks: oneself (400), a user who does not exist (404), as someone else (403); nothing changes", async () => {
		const before = await recordsSnapshot(plaza);
		const block = (who: Session, fields: Record<string, unknown>) => who.http("POST", "/Blocks", fields);
		const self = await block(blocker, { OwnerId: blocker.userId, BlockedId: blocker.userId });
		expect([self.status, self.body.ResponseStatus]).toEqual([
			400,
			expect.objectContaining({ Errors: [expect.objectContaining({ FieldName: "BlockedId" })] }),
		]);
		const nobody = "0123456789abcdef0123456789abcdef";
		expect((await block(blocker, { OwnerId: blocker.userId, BlockedId: nobody })).status).toBe(404);
		expect((await block(bystander, { OwnerId: blocker.userId, BlockedId: bystander.userId })).status).toBe(403);
		expect((await block(blocker, { OwnerId: blocker.userId })).status).toBe(400);
		expect((await blocker.http("DELETE", `/Blocks/${bystander.userId}?OwnerId=${blocker.userId}`)).status).toBe(404);
		expect(await recordsSnapshot(plaza)).toEqual(before);
	});

	test("neither may connect, subscribe, address, post in the other's context or add the other as a recipient: 403, nothing written", async () => {
		const before = await recordsSnapshot(plaza);
		for (const [who, other] of [
			[blocker, blocked],
			[blocked, blocker],
		]) {
			const refused = [
				await who.http("POST", "/Connections", { OwnerId: who.userId, ConnectToId: other.userId }),
				await who.http("POST", "/Subscriptions", { SubscriberId: who.userId, SubscribedToId: other.userId }),
				await who.http("POST", "/Posts", { AuthorId: who.userId, Content: "hey", RecipientIds: [other.userId] }),
				await who.http("POST", "/Posts", { AuthorId: who.userId, Content: "on your wall", ContextId: other.userId }),
			];
			expect(refused.map(answer => answer.status)).toEqual([403, 403, 403, 403]);
			// The other's post does not exist for them: no comment on it.
			const onTheirs = await who.http("POST", `/Posts/${String(mine(other).Id)}/Comments`, {
				AuthorId: who.userId,
				Content: "hi",
			});
			expect(onTheirs.status).toBe(404);
			const own = await post(who, { IsPrivate: true, Tags: [] });
			expect(
				(await who.http("POST", `/Posts/${String(own.Id)}/Recipients`, { RecipientId: other.userId })).status,
			).toBe(403);
			expect((await who.http("DELETE", `/Posts/${String(own.Id)}`)).status).toBe(200);
		}
		expect(await recordsSnapshot(plaza)).toEqual(before);
	});

	/** Each read path: the request one side sends about the other, and what of the other's it must not hold. */
	const readPaths: Array<[string, (me: Session, other: Session) => Record<string, unknown>, "hidden" | "without"]> = [
		["FindPost", (_me, other) => ({ Id: mine(other).Id }), "hidden"],
		["PostActivities", (_me, other) => ({ PostId: mine(other).Id }), "hidden"],
		["AllPostRecipients", (_me, other) => ({ Id: mine(other).Id }), "hidden"],
		["PostComments", (_me, other) => ({ PostId: mine(other).Id }), "hidden"],
		["FindComment", (_me, other) => ({ Id: commentOf(other).Id }), "hidden"],
		["UserPosts", (_me, other) => ({ UserId: other.userId }), "without"],
		["SearchPostsByTag", () => ({ TagNames: tag }), "without"],
		["UserFeed", me => ({ UserId: me.userId }), "without"],
		// The bystander's post itself is seen: the other's comment on it is not (embedded, or listed).
		["FindPost", () => ({ Id: bystanders.Id }), "without"],
		["PostComments", () => ({ PostId: bystanders.Id }), "without"],
		["PostActivities", () => ({ PostId: bystanders.Id }), "without"],
		// Pictures follow their posts: the one on the other's post is theirs to see no more.
		["FindPicture", (_me, other) => ({ Id: pictureOf(other).Id }), "hidden"],
		["UserPictures", (_me, other) => ({ OwnerId: other.userId }), "without"],
	];
	const pictureOf = (who: Session) => (who === blocker ? blockerPicture : blockedPicture);
	const mine = (who: Session) => (who === blocker ? byBlocker : byBlocked);
	const commentOf = (who: Session) => (who === blocker ? blockerComment : blockedComment);
	/** The activity line a comment of theirs made ("Bo Blocked commented"). */
	const commentedBy = (who: Session) => (who === blocker ? "Bea Blocker commented" : "Bo Blocked commented");

	describe.each(["rest", "generic", "soap"] as AccessSurface[])("on %s", surface => {
		test.each(readPaths)(
			"%s: 404, or an answer without the other's post and comment, both ways",
			async (name, params, kind) => {
				for (const [me, other] of [
					[blocker, blocked],
					[blocked, blocker],
				]) {
					const answer = await sendOn(plaza, surface, sessionHeaders(me.token), op(name), params(me, other));
					expect([name, answer.status]).toEqual([name, kind === "hidden" ? 404 : 200]);
					// A 404 names the id asked for; an answer holds neither the other's words, the lines telling of them, nor their ids.
					expect([name, answer.text]).not.toEqual([name, expect.stringContaining(String(commentOf(other).Content))]);
					expect([name, answer.text]).not.toEqual([name, expect.stringContaining(commentedBy(other))]);
					if (kind === "without")
						expect([
							name,
							holds(answer.text, mine(other).Id),
							holds(answer.text, commentOf(other).Id),
							holds(answer.text, pictureOf(other).Id),
						]).toEqual([name, false, false, false]);
					// The bystander reads both: the paths work, the block is what hides.
					const seen = await sendOn(
						plaza,
						surface,
						sessionHeaders(bystander.token),
						op(name),
						params(bystander, other),
					);
					expect([name, seen.status]).toEqual([name, 200]);
				}
			},
		);
	});

	test("the blocked one's earlier reply on the blocker's own post is hidden from the blocker, in what their own writes answer too; an admin still sees it", async () => {
		const path = `/Posts/${String(byBlocker.Id)}`;
		const answers = [
			await blocker.http("GET", path),
			await blocker.http("GET", `${path}/Comments`),
			await blocker.http("PUT", path, { Content: "words, edited" }),
			await blocker.http("GET", `/Comments/${String(reply.Id)}`),
		];
		expect(answers.map(answer => answer.status)).toEqual([200, 200, 200, 404]);
		for (const answer of answers.slice(0, 3))
			expect(answer.text).not.toMatch(/the blocked one's reply|Bo Blocked commented/);
		expect((await blocker.http("GET", `${path}/Activities`)).text).not.toContain("Bo Blocked commented");
		const byAdmin = await plaza.admin("GET", `${path}/Comments`);
		expect(byAdmin.text).toContain("the blocked one's reply");
		const activities = await plaza.admin("GET", `${path}/Activities`);
		expect(activities.text).toContain("Bo Blocked commented");
		// Whose action a line tells of is the server's to know: records carry their schema's fields only.
		expect([activities.text, (await plaza.admin("GET", path)).text].join()).not.toContain("ActorId");
	});

	describe("and then", () => {
		test("unblocking shows both again, kept answers included; the connection and subscriptions stay ended", async () => {
			const unblocked = await blocker.http("DELETE", `/Blocks/${blocked.userId}?OwnerId=${blocker.userId}`);
			expect([unblocked.status, unblocked.body.BlockedId]).toEqual([200, blocked.userId]);
			for (const [me, other] of [
				[blocker, blocked],
				[blocked, blocker],
			]) {
				expect((await me.http("GET", `/Posts/${String(mine(other).Id)}`)).status).toBe(200);
				const comments = (await me.http<Records>("GET", `/Posts/${String(bystanders.Id)}/Comments`)).body;
				expect(comments.map(c => c.Id)).toContain(commentOf(other).Id);
				const feed = (await me.http<Records>("GET", `/Users/${me.userId}/Feed`)).body.map(p => p.Id);
				expect(feed).toContain(mine(other).Id);
				expect((await me.http<Records>("GET", `/Users/${me.userId}/Connections`)).body).toEqual([]);
			}
			expect((await blocker.http<Records>("GET", `/Users/${blocker.userId}/Blocks`)).body).toEqual([]);
		});
	});
});

describe("mutes: the muted user's posts leave the muter's home timeline, and nothing else", () => {
	const {
		users: [muter, muted, other],
	} = plazaForSuite({ users: [{}, { FirstName: "Mo", LastName: "Muted" }, {}] });

	const feedIds = async (who: Session) =>
		(await who.http<Records>("GET", `/Users/${who.userId}/Feed`)).body.map(p => p.Id);

	test("a mute hides the muted user's posts from the muter's feed (kept first page included) without holes; FindPost, UserPosts and the muted user's own feed are as before; unmuting brings them back", async () => {
		for (const whom of [muted, other])
			expect(
				(await muter.http("POST", "/Subscriptions", { SubscriberId: muter.userId, SubscribedToId: whom.userId }))
					.status,
			).toBe(200);
		const posts: WireRecord[] = [];
		for (let i = 0; i < 6; i++) {
			const author = i % 2 ? muted : other;
			posts.push((await author.http("POST", "/Posts", { AuthorId: author.userId, Content: `p${i}` })).body);
		}
		const all = posts.map(p => p.Id).reverse();
		expect(await feedIds(muter)).toEqual(all);

		const mute = await muter.http("POST", "/Mutes", { OwnerId: muter.userId, MutedId: muted.userId });
		expect(mute.status).toBe(200);
		expect(mute.body).toMatchObject({ OwnerId: muter.userId, MutedId: muted.userId, FirstName: "Mo" });
		const others = posts.filter((_, i) => i % 2 === 0).map(p => p.Id);
		expect(await feedIds(muter)).toEqual([...others].reverse());
		// A page cut in the query: two posts, both the other's, though the muted user's lie between them.
		const page = await muter.http<Records>("GET", `/Users/${muter.userId}/Feed?Limit=2`);
		expect(page.body.map(p => p.Id)).toEqual([others[2], others[1]]);
		const mutedPost = posts[1].Id;
		expect((await muter.http("GET", `/Posts/${String(mutedPost)}`)).status).toBe(200);
		expect((await muter.http<Records>("GET", `/Users/${muted.userId}/Posts`)).body).toHaveLength(3);
		expect((await muter.http<Records>("GET", `/Users/${muter.userId}/Mutes`)).body).toEqual([
			expect.objectContaining({ MutedId: muted.userId }),
		]);
		// The muted user is not told, and reads as before: their own posts in their own feed.
		expect((await muted.http("GET", `/Users/${muter.userId}/Mutes`)).status).toBe(403);
		expect(await feedIds(muted)).toEqual([posts[5].Id, posts[3].Id, mutedPost]);

		expect((await muter.http("DELETE", `/Mutes/${muted.userId}?OwnerId=${muter.userId}`)).status).toBe(200);
		expect(await feedIds(muter)).toEqual(all);
		expect((await muter.http("DELETE", `/Mutes/${muted.userId}?OwnerId=${muter.userId}`)).status).toBe(404);
	});
});
