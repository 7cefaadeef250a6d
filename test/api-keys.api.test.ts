import { JsonServiceClient } from "@servicestack/client";
import { catalogue } from "../shared/catalogue";
import { FindUser } from "./support/client-dtos";
import { plazaForSuite, Session, WireRecord } from "./support/plaza";
import { AccessSurface, adminHeaders, sendOn } from "./support/access-wire";

/** Issue 37: API keys for programs, ServiceStack's ApiKeysFeature names, scoped from the catalogue. */
describe("API keys", () => {
	const { plaza } = plazaForSuite();
	const op = (name: string) => catalogue.find(o => o.name === name)!;
	const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

	async function newKey(owner: Session, fields: Record<string, unknown> = {}): Promise<string> {
		const made = await owner.http("POST", "/apikeys", fields);
		expect([made.status, made.text]).toEqual([200, expect.stringContaining('"Result":"ak-')]);
		return String(made.body.Result);
	}

	test("a key is shown once; its list shows its name, scopes and a masked key, never the key or its hash", async () => {
		const owner = await plaza.signUp();
		const key = await newKey(owner, { Name: "ci", Scopes: ["posts:read"], Notes: "the build" });
		expect(key).toMatch(/^ak-[0-9a-f]{32}$/);
		const listed = await owner.http("GET", "/apikeys");
		expect(listed.status).toBe(200);
		const [shown] = listed.body.Results as WireRecord[];
		expect(shown).toMatchObject({
			Name: "ci",
			UserId: owner.userId,
			VisibleKey: `ak-***${key.slice(-3)}`,
			Scopes: ["posts:read"],
			Notes: "the build",
			Active: true,
		});
		expect(listed.text).not.toContain(key.slice(3));
		expect(listed.text).not.toMatch(/KeyHash|[0-9a-f]{64}/);
	});

	test("a key signs in as its user by Bearer, X-Api-Key and the Basic user name; a bad one is 401", async () => {
		const owner = await plaza.signUp({ FirstName: "Keyed" });
		const key = await newKey(owner);
		const basic = { Authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` };
		for (const headers of [bearer(key), { "X-Api-Key": key }, basic]) {
			const found = await plaza.http("GET", `/Users/${owner.userId}`, undefined, headers);
			expect([found.status, found.body.FirstName]).toEqual([200, "Keyed"]);
		}
		for (const wrong of [`ak-${"0".repeat(32)}`, "ak-not-a-key", `${key}0`]) {
			const refused = await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(wrong));
			expect(refused.status).toBe(401);
			expect(refused.text).not.toContain(wrong);
		}
	});

	test("a scoped key calls its scopes' operations and is 403 outside them, on REST, the generic route and SOAP", async () => {
		const owner = await plaza.signUp();
		const key = await newKey(owner, { Scopes: ["posts:read", "users:read"] });
		const surfaces: AccessSurface[] = ["rest", "generic", "soap"];
		for (const surface of surfaces) {
			const feed = await sendOn(plaza, surface, bearer(key), op("UserFeed"), { UserId: owner.userId });
			expect([surface, feed.status]).toEqual([surface, 200]);
			const post = await sendOn(plaza, surface, bearer(key), op("CreatePost"), {
				AuthorId: owner.userId,
				Content: "outside the key's scopes",
			});
			expect([surface, post.status]).toEqual([surface, 403]);
			expect(post.text).toContain("posts:write");
		}
		const posts = await owner.http<WireRecord[]>("GET", `/Users/${owner.userId}/Posts`);
		expect(posts.body).toEqual([]);
	});

	test("unknown scopes are a 400 and make no key; a key cannot make keys", async () => {
		const owner = await plaza.signUp();
		const bad = await owner.http("POST", "/apikeys", { Scopes: ["posts:everything"] });
		expect([bad.status, bad.body.ResponseStatus]).toEqual([
			400,
			expect.objectContaining({ ErrorCode: "InvalidValue" }),
		]);
		expect((await owner.http("GET", "/apikeys")).body.Results).toEqual([]);
		const key = await newKey(owner);
		const byKey = await plaza.http("POST", "/apikeys", { Name: "more" }, bearer(key));
		expect(byKey.status).toBe(403);
	});

	test("revoking or deleting a key ends it at once; another user's key is 404 to its owner's neighbours", async () => {
		const owner = await plaza.signUp();
		const stranger = await plaza.signUp();
		const key = await newKey(owner);
		const id = Number(((await owner.http("GET", "/apikeys")).body.Results as WireRecord[])[0].Id);
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(key))).status).toBe(200);
		expect((await stranger.http("PUT", `/apikeys/${id}`, { CancelledDate: Date.now() })).status).toBe(404);
		expect((await stranger.http("DELETE", `/apikeys/${id}`)).status).toBe(404);
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(key))).status).toBe(200);

		expect((await owner.http("PUT", `/apikeys/${id}`, { CancelledDate: `/Date(${Date.now()})/` })).status).toBe(200);
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(key))).status).toBe(401);
		expect(((await owner.http("GET", "/apikeys")).body.Results as WireRecord[])[0].Active).toBe(false);

		const second = await newKey(owner);
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(second))).status).toBe(200);
		const secondId = Number(((await owner.http("GET", "/apikeys")).body.Results as WireRecord[])[0].Id);
		expect((await owner.http("DELETE", `/apikeys/${secondId}`)).status).toBe(200);
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(second))).status).toBe(401);
	});

	test("an admin makes, lists and revokes any user's key", async () => {
		const owner = await plaza.signUp();
		const made = await plaza.http(
			"POST",
			"/admin/apikeys",
			{ UserId: owner.userId, Scopes: ["users:read"] },
			adminHeaders,
		);
		expect(made.status).toBe(200);
		const key = String(made.body.Result);
		const listed = await plaza.http("GET", `/admin/apikeys?UserId=${owner.userId}`, undefined, adminHeaders);
		const [shown] = listed.body.Results as WireRecord[];
		expect(shown).toMatchObject({ UserId: owner.userId, Scopes: ["users:read"], Active: true });
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(key))).status).toBe(200);
		expect((await plaza.http("DELETE", `/admin/apikeys/${String(shown.Id)}`, undefined, adminHeaders)).status).toBe(
			200,
		);
		expect((await plaza.http("GET", `/Users/${owner.userId}`, undefined, bearer(key))).status).toBe(401);
	});

	test("@servicestack/client's JsonServiceClient calls with a key as its bearerToken, unmodified", async () => {
		const owner = await plaza.signUp({ FirstName: "Program" });
		const client = new JsonServiceClient(plaza.url);
		client.bearerToken = await newKey(owner);
		expect(await client.get(new FindUser({ Id: owner.userId }))).toMatchObject({
			Id: owner.userId,
			FirstName: "Program",
		});
	});
});
