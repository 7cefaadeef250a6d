import { JsonServiceClient } from "@servicestack/client";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, JSONWebKeySet, jwtVerify } from "jose";
import { defaultConfig } from "../shared/config";
import { FindUser } from "./support/client-dtos";
import { plazaForSuite, Session, TestPlaza, WireRecord } from "./support/plaza";

/** Issue 37: bearer and refresh tokens as ServiceStack's JwtAuthProvider gives them, views of a session. */
describe("bearer and refresh tokens", () => {
	// Bearer tokens of 2 s, so that a test sees one expire.
	const { plaza } = plazaForSuite({ config: { auth: { ...defaultConfig().auth, bearerTokenTtlSeconds: 2 } } });
	const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
	const findSelf = (p: TestPlaza, user: Session, headers: Record<string, string>) =>
		p.http("GET", `/Users/${user.userId}`, undefined, headers);
	const expire = () => new Promise(resolve => setTimeout(resolve, 2_200));

	async function signIn(user: Session, fields: Record<string, unknown> = {}) {
		const auth = await plaza.http("POST", "/auth/credentials", {
			UserName: user.userName,
			Password: user.password,
			...fields,
		});
		expect(auth.status).toBe(200);
		return auth;
	}

	test("a sign-in answers a bearer token (RS256, ServiceStack's claims) that other services verify from the key set", async () => {
		const user = await plaza.signUp({ FirstName: "Token" });
		const { body } = await signIn(user);
		const token = String(body.BearerToken);
		expect(String(body.RefreshToken)).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(body.RefreshTokenExpiry).toMatch(/^\/Date\(\d+(\+0000)?\)\/$/);
		expect(decodeProtectedHeader(token)).toMatchObject({ alg: "RS256", typ: "JWT", kid: expect.any(String) });
		expect(decodeJwt(token)).toMatchObject({ iss: "plaza", sub: user.userId, roles: [], sid: expect.any(String) });

		const published = await plaza.http<JSONWebKeySet>("GET", "/.well-known/jwks.json");
		expect(published.status).toBe(200);
		expect(published.body.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig" });
		expect(published.text).not.toMatch(/"d"|"p"|"q"/);
		const { payload } = await jwtVerify(token, createLocalJWKSet(published.body), { issuer: "plaza" });
		expect(payload.sub).toBe(user.userId);

		expect((await findSelf(plaza, user, bearer(token))).body.FirstName).toBe("Token");
		const forged = `${token.slice(0, -4)}${token.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
		expect((await findSelf(plaza, user, bearer(forged))).status).toBe(401);
	});

	test("an expired bearer token is 401 TokenException; a refresh token trades for a new pair once", async () => {
		const user = await plaza.signUp();
		const { body } = await signIn(user);
		await expire();
		const late = await findSelf(plaza, user, bearer(String(body.BearerToken)));
		expect([late.status, late.body.ResponseStatus]).toEqual([
			401,
			expect.objectContaining({ ErrorCode: "TokenException", Message: "Token has expired" }),
		]);
		const traded = await plaza.http("POST", "/access-token", { RefreshToken: body.RefreshToken });
		expect(traded.status).toBe(200);
		expect(traded.body.RefreshToken).not.toBe(body.RefreshToken);
		expect((await findSelf(plaza, user, bearer(String(traded.body.AccessToken)))).status).toBe(200);

		// The first refresh token again: a theft. The whole session ends, the new pair with it.
		const again = await plaza.http("POST", "/access-token", { RefreshToken: body.RefreshToken });
		expect([again.status, again.body.ResponseStatus]).toEqual([
			401,
			expect.objectContaining({ ErrorCode: "TokenException" }),
		]);
		expect((await findSelf(plaza, user, bearer(String(traded.body.AccessToken)))).status).toBe(401);
		expect((await plaza.http("POST", "/access-token", { RefreshToken: traded.body.RefreshToken })).status).toBe(401);
		expect((await plaza.http("POST", "/access-token", { RefreshToken: "not a token" })).status).toBe(400);
	});

	test("signing out or changing the password ends the session's tokens at once", async () => {
		const user = await plaza.signUp();
		const first = (await signIn(user)).body;
		expect((await plaza.http("POST", "/auth/logout", {}, bearer(String(first.BearerToken)))).status).toBe(200);
		expect((await findSelf(plaza, user, bearer(String(first.BearerToken)))).status).toBe(401);
		expect((await plaza.http("POST", "/access-token", { RefreshToken: first.RefreshToken })).status).toBe(401);

		const second = (await signIn(user)).body;
		const change = await user.http("PUT", `/Users/${user.userId}`, {
			FirstName: "Changed",
			LastName: "Password",
			Password: "a new password here",
			CurrentPassword: user.password,
		});
		expect(change.status).toBe(200);
		expect((await findSelf(plaza, user, bearer(String(second.BearerToken)))).status).toBe(401);
		expect((await plaza.http("POST", "/access-token", { RefreshToken: second.RefreshToken })).status).toBe(401);
	});

	test("with UseTokenCookie the tokens go as ss-tok and ss-reftok cookies, which sign the next requests in", async () => {
		const user = await plaza.signUp();
		const auth = await signIn(user, { UseTokenCookie: true });
		expect(auth.body.BearerToken).toBeUndefined();
		expect(auth.headers.get("x-cookies")).toBe("ss-tok,ss-reftok");
		const cookies = auth.headers.getSetCookie();
		const tok = cookies.find(c => c.startsWith("ss-tok="))!;
		expect(tok).toMatch(/HttpOnly/);
		const jar = cookies
			.map(c => c.split(";")[0])
			.filter(c => /^ss-(tok|reftok)=/.test(c))
			.join("; ");
		expect((await findSelf(plaza, user, { Cookie: jar })).status).toBe(200);
		await expire();
		const refreshed = await plaza.http("POST", "/access-token", { UseTokenCookie: true }, { Cookie: jar });
		expect(refreshed.status).toBe(200);
		expect(refreshed.headers.getSetCookie().some(c => c.startsWith("ss-tok="))).toBe(true);
	});

	test("@servicestack/client refreshes by itself on a 401, again and again, unmodified", async () => {
		const user = await plaza.signUp({ FirstName: "Refreshed" });
		const { body } = await signIn(user);
		const client = new JsonServiceClient(plaza.url);
		client.bearerToken = String(body.BearerToken);
		client.refreshToken = String(body.RefreshToken);
		for (let round = 0; round < 3; round++) {
			await expire();
			expect(await client.get(new FindUser({ Id: user.userId }))).toMatchObject({ FirstName: "Refreshed" });
		}
	});

	test("a bearer token may be limited to scopes when it is traded for: outside them it is 403", async () => {
		const user = await plaza.signUp();
		const { body } = await signIn(user);
		const narrow = await plaza.http("POST", "/access-token", {
			RefreshToken: body.RefreshToken,
			Scopes: ["users:read"],
		});
		expect(narrow.status).toBe(200);
		const token = String(narrow.body.AccessToken);
		expect(decodeJwt(token).scope).toBe("users:read");
		expect((await findSelf(plaza, user, bearer(token))).status).toBe(200);
		const write = await plaza.http("POST", "/Posts", { AuthorId: user.userId, Content: "no" }, bearer(token));
		expect([write.status, write.text]).toEqual([403, expect.stringContaining("posts:write")]);
		const unknown = await plaza.http("POST", "/access-token", {
			RefreshToken: narrow.body.RefreshToken,
			Scopes: ["everything"],
		});
		expect(unknown.status).toBe(400);
	});

	test("the tokens of a sign-in are also in RegistrationResponse with AutoLogin", async () => {
		const registered = await plaza.http<WireRecord>("POST", "/register", {
			UserName: `tokens${Date.now()}`,
			Password: "a password of length",
			AutoLogin: true,
		});
		expect(registered.status).toBe(200);
		expect(String(registered.body.BearerToken).split(".")).toHaveLength(3);
		expect(String(registered.body.RefreshToken)).toHaveLength(43);
	});
});

describe("signing keys rotate without downtime", () => {
	const { plaza } = plazaForSuite({ config: { auth: { ...defaultConfig().auth, tokenKeyRotationSeconds: 2 } } });

	test("after a rotation new tokens name the new key, and tokens signed with the old one still verify", async () => {
		const user = await plaza.signUp();
		const signIn = async () =>
			String(
				(await plaza.http("POST", "/auth/credentials", { UserName: user.userName, Password: user.password })).body
					.BearerToken,
			);
		const before = await signIn();
		await new Promise(resolve => setTimeout(resolve, 2_200));
		const after = await signIn();
		expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
		for (const token of [before, after])
			expect(
				(await plaza.http("GET", `/Users/${user.userId}`, undefined, { Authorization: `Bearer ${token}` })).status,
			).toBe(200);
		const published = await plaza.http<JSONWebKeySet>("GET", "/.well-known/jwks.json");
		expect(published.body.keys.map(k => k.kid).sort()).toEqual(
			[decodeProtectedHeader(before).kid, decodeProtectedHeader(after).kid].sort(),
		);
	});
});
