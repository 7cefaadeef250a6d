/**
 * Issue 17, item 3, and issue 37's credentials: the access matrix, generated from the catalogue. Every
 * operation × {anonymous, stranger, owner by session, bearer token, API key and out-of-scope key, admin}
 * × {REST, generic route, SOAP}: the expected answer comes from the entry's access, scope and actors, and,
 * for operations acting on a record someone owns, from the small table in support/access-rows.ts, which
 * must name exactly the catalogue's operations. A refused cell writes
 * nothing. Then private posts, in every read path, on every surface: a stranger never gets the post
 * or anything of it. Runs on the in-memory store and, as project api-on-postgres, on PostgreSQL.
 */
import { catalogue, Operation } from "../shared/catalogue";
import { Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { recordsSnapshot } from "./support/access-records";
import { gifData, makeWorld, Row, rows, World } from "./support/access-rows";
import { AccessSurface, adminHeaders, Caller, sendOn, sessionHeaders } from "./support/access-wire";

const engine = process.env.PLAZA_TEST_STORE === "postgres" ? "postgresql" : "embedded";
const callers: Caller[] = ["anonymous", "stranger", "owner", "owner token", "owner key", "narrow key", "admin"];
const surfaces: AccessSurface[] = ["rest", "generic", "soap"];

/** 2xx as one outcome ("allowed"); refusals by their status. */
type Outcome = "allowed" | number;
const outcomeOf = (status: number): Outcome => (status >= 200 && status < 300 ? "allowed" : status);

/**
 * PRODUCT.md §3 as the catalogue states it: public operations are anyone's; others need a caller
 * (401); admin operations the Admin role (403); actor fields must name the caller (403, the stranger
 * sends the owner's id); and a record someone owns answers the stranger as its row says.
 */
function expected(op: Operation, row: Row, caller: Caller): Outcome {
	// Outside its scopes a key is refused whatever the operation, public ones included.
	if (caller === "narrow key") return 403;
	if (op.access === "public") return "allowed";
	if (caller === "anonymous") return 401;
	if (op.access === "admin") return caller === "admin" ? "allowed" : 403;
	if (caller === "admin") return row.adminKey ?? "allowed";
	if (caller === "owner key" && row.keyRefused) return 403;
	if (row.othersRecord && caller !== "stranger") return 403;
	if (caller !== "stranger") return "allowed";
	if (op.actors?.length) return 403;
	return row.ownedBy?.stranger ?? "allowed";
}

describe("the access matrix: every operation × every kind of caller and credential, on REST, the generic route and SOAP", () => {
	let plaza: TestPlaza;
	let owner: Session;
	let stranger: Session;
	let world: World;
	let cells = 0;
	let credentials: { token: string; key: string; narrowKey: string };
	const headersOf = (caller: Caller): Record<string, string> =>
		({
			anonymous: {},
			stranger: sessionHeaders(stranger.token),
			owner: sessionHeaders(owner.token),
			"owner token": { Authorization: `Bearer ${credentials.token}` },
			"owner key": { Authorization: `Bearer ${credentials.key}` },
			"narrow key": { "X-Api-Key": credentials.narrowKey },
			admin: adminHeaders,
		})[caller];

	beforeAll(async () => {
		plaza = await startPlaza();
		[owner, stranger] = [await plaza.signUp(), await plaza.signUp()];
		world = await makeWorld(plaza, owner);
		const signIn = { UserName: owner.userName, Password: owner.password };
		const key = async (Scopes: string[]) => String((await owner.http("POST", "/apikeys", { Scopes })).body.Result);
		credentials = {
			token: String((await plaza.http("POST", "/auth/credentials", signIn)).body.BearerToken),
			key: await key([]),
			narrowKey: await key(["apikeys:read"]),
		};
	});
	afterAll(async () => {
		console.log(
			`access matrix (${engine}): ${cells} cells checked (${catalogue.length} operations × ${callers.length} callers × ${surfaces.length} surfaces)`,
		);
		await plaza?.stop();
	});

	test("the ownership table names exactly the catalogue's operations: a new operation cannot ship without its row", () => {
		expect(Object.keys(rows).sort()).toEqual(catalogue.map(op => op.name).sort());
	});

	test.each(catalogue.map(op => [op.name, op] as const))("%s", async (name, op) => {
		const row = rows[name];
		if (!row) throw new Error(`${name} has no row in test/support/access-rows.ts: say what it acts on and whose it is`);
		const want: Record<string, Outcome> = {};
		// A cell that differs shows the status and the start of the answer.
		const got: Record<string, string | number> = {};
		for (const surface of surfaces) {
			for (const caller of callers) {
				const cell = `${surface} ${caller}`;
				want[cell] = expected(op, row, caller);
				const params = await row.params(world);
				const before = want[cell] === "allowed" ? undefined : await recordsSnapshot(plaza, [owner.userId]);
				const answer = await sendOn(plaza, surface, headersOf(caller), op, params, row.routeIndex);
				got[cell] = outcomeOf(answer.status);
				if (got[cell] !== want[cell]) got[cell] = `${answer.status}: ${answer.text.slice(0, 200)}`;
				// A refused request changes nothing: no row added or removed, the owner's record as it was.
				else if (before) expect([cell, await recordsSnapshot(plaza, [owner.userId])]).toEqual([cell, before]);
				cells += 1;
			}
		}
		expect(got).toEqual(want);
	});
});

describe("a private post, in every read path, on every surface: nobody but its audience gets it or anything of it", () => {
	let plaza: TestPlaza;
	let checks = 0;
	const secret = `hush${Date.now()}`;
	const tag = `tag${Date.now()}`;
	let owner: Session;
	/** Denied: no relation; connected to, subscribed to and in an open network with the owner. */
	let stranger: Session;
	let acquaintance: Session;
	/** Allowed: a recipient, and a member of a recipient network. */
	let recipient: Session;
	let insider: Session;
	let post: WireRecord;
	let publicPost: WireRecord;
	let comment: WireRecord;
	let picture: WireRecord;

	beforeAll(async () => {
		plaza = await startPlaza();
		[owner, stranger, acquaintance, recipient, insider] = [
			await plaza.signUp(),
			await plaza.signUp(),
			await plaza.signUp(),
			await plaza.signUp(),
			await plaza.signUp(),
		];
		const open = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Open club", IsOpen: true }))
			.body;
		expect(
			(await acquaintance.http("POST", `/Networks/${open.Id}/Members`, { UserId: acquaintance.userId })).status,
		).toBe(200);
		expect(
			(await acquaintance.http("POST", "/Connections", { OwnerId: acquaintance.userId, ConnectToId: owner.userId }))
				.status,
		).toBe(200);
		expect(
			(
				await acquaintance.http("POST", "/Subscriptions", {
					SubscriberId: acquaintance.userId,
					SubscribedToId: owner.userId,
				})
			).status,
		).toBe(200);
		const inner = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Inner circle" })).body;
		expect((await owner.http("POST", `/Networks/${inner.Id}/Members`, { UserId: insider.userId })).status).toBe(200);

		post = (
			await owner.http("POST", "/Posts", {
				AuthorId: owner.userId,
				Content: `${secret} content`,
				IsPrivate: true,
				Tags: [tag, `${secret}tag`],
				RecipientIds: [recipient.userId, inner.Id],
			})
		).body;
		publicPost = (
			await owner.http("POST", "/Posts", { AuthorId: owner.userId, Content: "anyone may read this", Tags: [tag] })
		).body;
		comment = (
			await recipient.http("POST", `/Posts/${post.Id}/Comments`, {
				AuthorId: recipient.userId,
				Content: `${secret} comment`,
			})
		).body;
		picture = (
			await owner.http("POST", "/Pictures", {
				OwnerId: owner.userId,
				PostId: post.Id,
				ContentType: "image/gif",
				Data: gifData,
			})
		).body;
		expect([post.Id, publicPost.Id, comment.Id, picture.Id].every(Boolean)).toBe(true);
	});
	afterAll(async () => {
		console.log(`private post read paths (${engine}): ${checks} answers checked`);
		await plaza?.stop();
	});

	const op = (name: string) => catalogue.find(o => o.name === name)!;
	/** Ids as the text of any surface holds them (SOAP writes GUIDs with dashes). */
	const holds = (text: string, id: unknown) => text.replace(/-/g, "").toLowerCase().includes(String(id).toLowerCase());

	/** Each read path: the request a reader sends, and whether the answer shows the post (or a part of it). */
	const readPaths: Array<[string, (reader: Session) => Record<string, unknown>, "record" | "list", () => unknown]> = [
		["FindPost", () => ({ Id: post.Id }), "record", () => post.Id],
		// Its shared tag and its own: the stranger's answer must not even hold its own tag's name.
		["SearchPostsByTag", () => ({ TagNames: `${tag},${secret}tag` }), "list", () => post.Id],
		["UserFeed", reader => ({ UserId: reader.userId }), "list", () => post.Id],
		["UserPosts", () => ({ UserId: owner.userId }), "list", () => post.Id],
		["PostComments", () => ({ PostId: post.Id }), "record", () => comment.Id],
		["FindComment", () => ({ Id: comment.Id }), "record", () => comment.Id],
		["AllPostRecipients", () => ({ Id: post.Id }), "record", () => recipient.userId],
		["PostActivities", () => ({ PostId: post.Id }), "record", () => post.Id],
		["FindPicture", () => ({ Id: picture.Id }), "record", () => picture.Id],
		["UserPictures", () => ({ OwnerId: owner.userId }), "list", () => picture.Id],
	];

	describe.each(["rest", "generic", "soap"] as const)("on %s", surface => {
		test.each(readPaths)(
			"%s: 404 or a list without it for a stranger and an acquaintance; its audience reads it",
			async (name, paramsFor, kind, part) => {
				for (const reader of [stranger, acquaintance]) {
					const answer = await sendOn(plaza, surface, sessionHeaders(reader.token), op(name), paramsFor(reader));
					expect([
						name,
						reader === stranger ? "stranger" : "acquaintance",
						kind === "record" ? answer.status : outcomeOf(answer.status),
					]).toEqual([name, reader === stranger ? "stranger" : "acquaintance", kind === "record" ? 404 : "allowed"]);
					expect(answer.text).not.toContain(secret);
					if (kind === "list") expect(holds(answer.text, part())).toBe(false);
					checks += 1;
				}
				// The same paths serve its audience, so that a denial above is the rule, not a broken path.
				for (const reader of [owner, recipient, insider]) {
					const answer = await sendOn(plaza, surface, sessionHeaders(reader.token), op(name), paramsFor(reader));
					expect([name, answer.status]).toEqual([name, 200]);
					expect([name, holds(answer.text, part())]).toEqual([name, true]);
					checks += 1;
				}
				const byAdmin = await sendOn(plaza, surface, adminHeaders, op(name), paramsFor(owner));
				expect([name, byAdmin.status, holds(byAdmin.text, part())]).toEqual([name, 200, true]);
				checks += 1;
			},
		);

		test("a public post with the same tag reaches the stranger: the search path itself works", async () => {
			const answer = await sendOn(plaza, surface, sessionHeaders(stranger.token), op("SearchPostsByTag"), {
				TagNames: tag,
			});
			expect([answer.status, holds(answer.text, publicPost.Id), holds(answer.text, post.Id)]).toEqual([
				200,
				true,
				false,
			]);
			checks += 1;
		});

		test("the media file of its picture, and writes that would reveal it (a tag, a comment, a recipient, a picture): 404, nothing written", async () => {
			const writes: Array<[string, Record<string, unknown>]> = [
				["MediaFile", { Id: picture.Id }],
				["CreateTag", { PostId: post.Id, Value: "mine" }],
				["CreateComment", { PostId: post.Id, AuthorId: stranger.userId, Content: "let me in" }],
				["CreatePostRecipient", { PostId: post.Id, RecipientId: stranger.userId }],
				["CreateNetworkRecipient", { PostId: post.Id, NetworkId: stranger.userId }],
				["CreatePicture", { OwnerId: stranger.userId, PostId: post.Id, ContentType: "image/gif", Data: picture.Id }],
			];
			const before = await recordsSnapshot(plaza);
			for (const [name, params] of writes) {
				const answer = await sendOn(plaza, surface, sessionHeaders(stranger.token), op(name), params);
				expect([name, answer.status]).toEqual([name, 404]);
				expect(answer.text).not.toContain(secret);
				checks += 1;
			}
			expect(await recordsSnapshot(plaza)).toEqual(before);
		});
	});
});
