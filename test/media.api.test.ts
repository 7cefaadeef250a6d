import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { png } from "./support/png";

describe("avatars and pictures", () => {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-media-"));
	const blobsDir = path.join(dataDir, "blobs");
	let plaza: TestPlaza;
	let ann: Session;
	let bob: Session;
	const image = png(16, 16);

	beforeAll(async () => {
		plaza = await startPlaza({ store: { kind: "sqlite", dir: dataDir } });
		[ann, bob] = await Promise.all([plaza.signUp(), plaza.signUp()]);
	});
	afterAll(async () => {
		await plaza.stop();
		fs.rmSync(dataDir, { recursive: true, force: true });
	});

	const stored = async () => ({
		records: await plaza.count("media", "media_records"),
		blobs: fs.existsSync(blobsDir) ? fs.readdirSync(blobsDir).length : 0,
	});

	test("an uploaded PNG comes back byte-identical as image/png, with an ETag and long caching; a matching If-None-Match is 304", async () => {
		const avatar = await ann.http("POST", `/Users/${ann.userId}/Avatars`, {
			ContentType: "image/png",
			Data: image.toString("base64"),
		});
		expect(avatar.status).toBe(200);
		expect(avatar.body).toEqual({
			Id: expect.any(String),
			UserId: ann.userId,
			ContentType: "image/png",
			Size: image.length,
			Url: `/media/${avatar.body.Id}`,
			CreatedTime: expect.any(String),
		});

		const file = await fetch(plaza.url + String(avatar.body.Url), { headers: { "X-ss-id": bob.token } });
		expect(file.status).toBe(200);
		expect(file.headers.get("content-type")).toBe("image/png");
		expect(file.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
		const etag = file.headers.get("etag")!;
		expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
		expect(Buffer.from(await file.arrayBuffer()).equals(image)).toBe(true);

		const cached = await fetch(plaza.url + String(avatar.body.Url), {
			headers: { "X-ss-id": bob.token, "If-None-Match": etag },
		});
		expect(cached.status).toBe(304);
		expect((await cached.arrayBuffer()).byteLength).toBe(0);

		const current = await fetch(`${plaza.url}/Users/${ann.userId}/Avatar`, { headers: { "X-ss-id": bob.token } });
		expect(Buffer.from(await current.arrayBuffer()).equals(image)).toBe(true);
		const record = await bob.http("POST", "/json/reply/MediaFile", { Id: avatar.body.Id });
		expect(record.body).toMatchObject({
			Id: avatar.body.Id,
			ContentType: "image/png",
			Size: image.length,
			Data: image.toString("base64"),
		});
		expect((await bob.http("GET", `/Avatars/${avatar.body.Id}`)).body).toEqual(avatar.body);
		expect((await fetch(plaza.url + String(avatar.body.Url))).status).toBe(401);
	});

	test("a multipart upload on the REST route works as well", async () => {
		const form = new FormData();
		form.append("Data", new Blob([image], { type: "image/png" }), "me.png");
		const res = await fetch(`${plaza.url}/Users/${ann.userId}/Avatars`, {
			method: "POST",
			body: form,
			headers: { "X-ss-id": ann.token },
		});
		expect(res.status).toBe(200);
		const avatar = (await res.json()) as WireRecord;
		expect(avatar).toMatchObject({ ContentType: "image/png", Size: image.length });
		const file = await fetch(`${plaza.url}/media/${avatar.Id}`, { headers: { "X-ss-id": ann.token } });
		expect(Buffer.from(await file.arrayBuffer()).equals(image)).toBe(true);
		const generic = await ann.http("POST", "/json/reply/CreateAvatar", {
			UserId: ann.userId,
			ContentType: "image/png",
			Data: image.toString("base64"),
		});
		expect(generic.status).toBe(200);
	});

	test.each([
		["a PNG declared as JPEG", { ContentType: "image/jpeg", Data: image.toString("base64") }, 400, "Data"],
		[
			"a text file declared as PNG",
			{ ContentType: "image/png", Data: Buffer.from("just some text, not an image").toString("base64") },
			400,
			"Data",
		],
		[
			"a text file as text/plain",
			{ ContentType: "text/plain", Data: Buffer.from("hello").toString("base64") },
			400,
			"ContentType",
		],
		["Data that is not base64", { ContentType: "image/png", Data: "%%% not base64 %%%" }, 400, "Data"],
	])("%s is refused (400) and leaves nothing behind", async (_case, body, status, field) => {
		const before = await stored();
		const reply = await ann.http<ErrorBody>("POST", `/Users/${ann.userId}/Avatars`, body);
		expect(reply.status).toBe(status);
		expect(reply.body.ResponseStatus.Errors[0].FieldName).toBe(field);
		expect(await stored()).toEqual(before);
	});

	test("a 6 MB image is refused (413) and leaves nothing behind, as JSON and as multipart", async () => {
		const before = await stored();
		const big = Buffer.concat([image, Buffer.alloc(6 * 1024 * 1024)]);
		const json = await ann.http<ErrorBody>("POST", `/Users/${ann.userId}/Avatars`, {
			ContentType: "image/png",
			Data: big.toString("base64"),
		});
		expect(json.status).toBe(413);
		expect(json.body.ResponseStatus.ErrorCode).toBe("PayloadTooLarge");
		const form = new FormData();
		form.append("Data", new Blob([big], { type: "image/png" }), "big.png");
		const multipart = await fetch(`${plaza.url}/Users/${ann.userId}/Avatars`, {
			method: "POST",
			body: form,
			headers: { "X-ss-id": ann.token },
		});
		expect(multipart.status).toBe(413);
		expect(await stored()).toEqual(before);
	});

	test("nobody uploads an avatar for someone else", async () => {
		expect(
			(
				await bob.http("POST", `/Users/${ann.userId}/Avatars`, {
					ContentType: "image/png",
					Data: image.toString("base64"),
				})
			).status,
		).toBe(403);
	});

	test("pictures: listed by owner; one for a private post is the author's to add and only its audience sees it", async () => {
		const post = (await ann.http("POST", "/Posts", { AuthorId: ann.userId, Content: "private album", IsPrivate: true }))
			.body;
		expect(
			(
				await bob.http("POST", "/Pictures", {
					OwnerId: bob.userId,
					PostId: post.Id,
					ContentType: "image/png",
					Data: image.toString("base64"),
				})
			).status,
		).toBe(404);
		const picture = await ann.http("POST", "/Pictures", {
			OwnerId: ann.userId,
			PostId: post.Id,
			ContentType: "image/png",
			Data: image.toString("base64"),
		});
		expect(picture.status).toBe(200);
		expect(picture.body).toMatchObject({ OwnerId: ann.userId, PostId: post.Id, Url: `/media/${picture.body.Id}` });
		const open = await ann.http("POST", "/json/reply/CreatePicture", {
			OwnerId: ann.userId,
			ContentType: "image/png",
			Data: image.toString("base64"),
		});

		expect((await ann.http<WireRecord[]>("GET", `/Users/${ann.userId}/Pictures`)).body.map(p => p.Id)).toEqual([
			picture.body.Id,
			open.body.Id,
		]);
		expect((await bob.http<WireRecord[]>("GET", `/Users/${ann.userId}/Pictures`)).body.map(p => p.Id)).toEqual([
			open.body.Id,
		]);
		expect((await bob.http("GET", `/Pictures/${picture.body.Id}`)).status).toBe(404);
		expect((await fetch(`${plaza.url}/media/${picture.body.Id}`, { headers: { "X-ss-id": bob.token } })).status).toBe(
			404,
		);
		expect((await fetch(`${plaza.url}/media/${picture.body.Id}`, { headers: { "X-ss-id": ann.token } })).status).toBe(
			200,
		);
	});
});
