import { adminHeaders } from "./support/access-wire";
import { gifData } from "./support/access-rows";
import { plazaForSuite, Session, WireRecord } from "./support/plaza";

type Records = WireRecord[];

const wireDate = /^\/Date\(\d+\+0000\)\/$/;

/** Every field name in a value, however deep (records in lists in records). */
function fieldNames(value: unknown): string[] {
	if (Array.isArray(value)) return value.flatMap(fieldNames);
	if (value === null || typeof value !== "object") return [];
	return Object.entries(value).flatMap(([name, field]) => [name, ...fieldNames(field)]);
}

/** Issue 38, item 4: an export of everything Plaza holds about oneself, made in the background, the owner's alone. */
describe("exports of one's own data", () => {
	const {
		plaza,
		users: [me, other, stranger],
	} = plazaForSuite({ users: [{ FirstName: "Ex", LastName: "Porter", Email: "ex.porter@example.org" }, {}, {}] });

	const post = async (who: Session, path: string, body: Record<string, unknown>) => {
		const reply = await who.http("POST", path, body);
		if (reply.status !== 200) throw new Error(`POST ${path}: ${reply.status} ${reply.text}`);
		return reply.body;
	};

	/** Polls the export until it is finished: its last record, and every Progress seen on the way. */
	async function finished(who: Session, id: string) {
		const progress: number[] = [];
		for (let polls = 0; polls < 500; polls++) {
			const reply = await who.http("GET", `/exports/${id}`);
			expect(reply.status).toBe(200);
			progress.push(Number(reply.body.Progress));
			if (reply.body.Status === "Ready" || reply.body.Status === "Failed") return { record: reply.body, progress };
			await new Promise(resolve => setTimeout(resolve, 20));
		}
		throw new Error(`Export ${id} did not finish`);
	}

	let made: Record<string, WireRecord>;
	let exportId: string;

	beforeAll(async () => {
		const openNetwork = await post(other, "/Networks", { OwnerId: other.userId, Name: "Open club", IsOpen: true });
		const otherPost = await post(other, "/Posts", { AuthorId: other.userId, Content: "anyone may comment" });
		made = {
			connection: (
				(await post(me, "/Connections", { OwnerId: me.userId, ConnectToId: other.userId })) as unknown as Records
			)[0],
			network: await post(me, "/Networks", { OwnerId: me.userId, Name: "My circle" }),
			membership: await post(me, `/Networks/${openNetwork.Id}/Members`, { UserId: me.userId }),
			openNetwork,
			subscription: await post(me, "/Subscriptions", { SubscriberId: me.userId, SubscribedToId: other.userId }),
			block: await post(me, "/Blocks", { OwnerId: me.userId, BlockedId: stranger.userId }),
			mute: await post(me, "/Mutes", { OwnerId: me.userId, MutedId: other.userId }),
			publicPost: await post(me, "/Posts", { AuthorId: me.userId, Content: "hello", Tags: ["intro"] }),
			privatePost: await post(me, "/Posts", { AuthorId: me.userId, Content: "just me", IsPrivate: true }),
			comment: await post(me, `/Posts/${otherPost.Id}/Comments`, { AuthorId: me.userId, Content: "nice" }),
			device: await post(me, `/Users/${me.userId}/Devices`, { DeviceToken: "token-1", Platform: "ios" }),
			picture: await post(me, "/Pictures", { OwnerId: me.userId, ContentType: "image/gif", Data: gifData }),
			avatar: await post(me, `/Users/${me.userId}/Avatars`, { ContentType: "image/gif", Data: gifData }),
		};
		// Another user's comment and device: theirs, in nobody else's archive.
		await post(other, `/Posts/${otherPost.Id}/Comments`, { AuthorId: other.userId, Content: "thanks" });
		await post(other, `/Users/${other.userId}/Devices`, { DeviceToken: "token-2" });
	});

	test("CreateDataExport answers at once (Pending); the export runs to Ready with Progress up to 100 and a DownloadUrl", async () => {
		const created = await me.http("POST", "/exports", {});
		expect(created.status).toBe(200);
		expect(created.body).toMatchObject({ UserId: me.userId, Status: "Pending", Progress: 0 });
		expect(created.body.DownloadUrl).toBeUndefined();
		exportId = created.body.Id;
		// Before it is Ready its file is 404, even to its owner: when the status read after the file is not Ready yet (as
		// here, so far, always), the file was not either. The restart below shows a Running export's 404 in any case.
		const early = await me.http("GET", `/exports/${exportId}/file`);
		const meanwhile = await me.http("GET", `/exports/${exportId}`);
		if (meanwhile.body.Status !== "Ready") expect(early.status).toBe(404);

		const { record, progress } = await finished(me, exportId);
		expect(record).toMatchObject({ Status: "Ready", Progress: 100, DownloadUrl: `/exports/${exportId}/file` });
		expect(record.CompletedTime).toMatch(wireDate);
		expect(progress).toEqual([...progress].sort((a, b) => a - b));
		// Asked again once it is done, a new export starts.
		const again = await me.http("POST", "/exports", {});
		expect(again.body.Id).not.toBe(exportId);
		await finished(me, again.body.Id);
	});

	test("the file holds every section in the API's own shapes: PascalCase fields, \\/Date()\\/ dates", async () => {
		const file = await me.http("GET", `/exports/${exportId}/file`);
		expect(file.status).toBe(200);
		expect(file.headers.get("content-type")).toBe("application/json");
		expect(file.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
		expect(file.text).toContain("\\/Date(");
		const archive = JSON.parse(file.text) as Record<string, unknown>;
		expect(Object.keys(archive)).toEqual([
			"Profile",
			"Connections",
			"Networks",
			"Subscriptions",
			"Blocks",
			"Mutes",
			"Posts",
			"Comments",
			"Devices",
			"Pictures",
			"Avatar",
			"ExportedTime",
		]);
		expect(fieldNames(archive).filter(name => !/^[A-Z]/.test(name))).toEqual([]);
		expect(archive.ExportedTime).toMatch(wireDate);

		const profile = archive.Profile as WireRecord;
		expect(profile).toMatchObject({
			Id: me.userId,
			FirstName: "Ex",
			LastName: "Porter",
			Email: "ex.porter@example.org",
		});
		expect(profile.CreatedTime).toMatch(wireDate);

		const section = (name: string) => archive[name] as Records;
		expect(section("Connections")).toEqual([
			expect.objectContaining({ Id: made.connection.Id, OwnerId: me.userId, UserId: other.userId }),
		]);
		expect(
			section("Networks")
				.map(n => n.Id)
				.sort(),
		).toEqual([made.network.Id, made.openNetwork.Id].sort());
		expect(section("Subscriptions")).toEqual([
			expect.objectContaining({ SubscriberId: me.userId, SubscribedToId: other.userId }),
		]);
		expect(section("Blocks")).toEqual([expect.objectContaining({ OwnerId: me.userId, BlockedId: stranger.userId })]);
		expect(section("Mutes")).toEqual([expect.objectContaining({ OwnerId: me.userId, MutedId: other.userId })]);
		const posts = section("Posts");
		expect(posts.map(p => p.Id).sort()).toEqual([made.publicPost.Id, made.privatePost.Id].sort());
		expect(posts.find(p => p.Id === made.privatePost.Id)).toMatchObject({ IsPrivate: true, Content: "just me" });
		expect(posts.find(p => p.Id === made.publicPost.Id)?.Tags).toEqual([expect.objectContaining({ Value: "intro" })]);
		expect(posts.every(p => wireDate.test(String(p.CreatedTime)))).toBe(true);
		expect(section("Comments")).toEqual([
			expect.objectContaining({
				Id: made.comment.Id,
				AuthorId: me.userId,
				Content: "nice",
				CreatedTime: expect.stringMatching(wireDate),
			}),
		]);
		expect(section("Devices")).toEqual([
			expect.objectContaining({ Id: made.device.Id, UserId: me.userId, DeviceToken: "token-1", Platform: "ios" }),
		]);
		expect(section("Pictures")).toEqual([
			expect.objectContaining({ Id: made.picture.Id, Url: `/media/${made.picture.Id}`, ContentType: "image/gif" }),
		]);
		expect(archive.Avatar).toMatchObject({ Id: made.avatar.Id, UserId: me.userId, Url: `/media/${made.avatar.Id}` });

		// The same file by the generic route: the record, its bytes in base64.
		const record = await me.http("GET", `/json/reply/DataExportFile?Id=${exportId}`);
		expect(record.body).toMatchObject({
			Id: exportId,
			ContentType: "application/json",
			Size: Buffer.byteLength(file.text),
		});
		expect(Buffer.from(String(record.body.Data), "base64").toString()).toBe(file.text);
	});

	test("another user gets 404 for the status and the file; the administrator's key 403", async () => {
		expect((await stranger.http("GET", `/exports/${exportId}`)).status).toBe(404);
		expect((await stranger.http("GET", `/exports/${exportId}/file`)).status).toBe(404);
		expect((await plaza.http("GET", `/exports/${exportId}`, undefined, adminHeaders)).status).toBe(403);
		expect((await plaza.http("GET", `/exports/${exportId}/file`, undefined, adminHeaders)).status).toBe(403);
		expect((await plaza.http("POST", "/exports", {}, adminHeaders)).status).toBe(403);
	});

	test("a key limited to exports cannot read through an export what its scopes keep from it (403)", async () => {
		const key = String((await me.http("POST", "/apikeys", { Scopes: ["exports:write", "exports:read"] })).body.Result);
		const refused = await plaza.http("POST", "/exports", {}, { Authorization: `Bearer ${key}` });
		expect(refused.status).toBe(403);
		expect(refused.text).toContain("users:read");
	});

	test("an export a dead process left Running is 404 as a file, then restarted by the sweep and finished", async () => {
		const stored = plaza.stored("exports");
		// What a process that died mid-run leaves: Running, part-way, and quiet for long.
		await stored.update("data_exports", { id: exportId }, { status: "Running", progress: 40, updated_time: 0 });
		const left = await me.http("GET", `/exports/${exportId}`);
		expect(left.body).toMatchObject({ Status: "Running", Progress: 40 });
		expect(left.body.DownloadUrl).toBeUndefined();
		expect((await me.http("GET", `/exports/${exportId}/file`)).status).toBe(404);

		// The sweep, run now rather than on its timer (which may have taken it meanwhile: the run number says it moved on).
		const exports = plaza.broker.getLocalService("exports") as unknown as { restartQuiet(): Promise<number> };
		await exports.restartQuiet();
		const { record } = await finished(me, exportId);
		expect(record).toMatchObject({ Status: "Ready", Progress: 100 });
		expect((await stored.find("data_exports", { id: exportId }))?.run).toBe(2);
		const file = await me.http("GET", `/exports/${exportId}/file`);
		expect(file.status).toBe(200);
		expect((JSON.parse(file.text) as { Comments: Records }).Comments.map(c => c.Id)).toEqual([made.comment.Id]);
	});
});
