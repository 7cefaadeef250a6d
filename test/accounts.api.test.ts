import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { ADMIN_KEY, ErrorBody, plazaForSuite, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { defaultConfig } from "../shared/config";
import { createUser } from "./support/users";

interface AuthBody {
	UserId?: string;
	SessionId?: string;
	UserName?: string;
	DisplayName?: string;
	ReferrerUrl?: string;
}

/** A user's row as the users database stores it (every column). */
const storedUser = (plaza: TestPlaza, id: string) => plaza.stored("users").find("users", { id });

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const cookieHeader = (setCookies: string[]) => setCookies.map(c => c.split(";")[0]).join("; ");
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

describe("registration and sign-in", () => {
	const { plaza } = plazaForSuite({ services: ["users"] });

	test("the full flow: register, sign in, call with the cookie, X-ss-id, Basic and an API key, sign out, old session refused", async () => {
		const registered = await plaza.http<AuthBody>("POST", "/register", {
			UserName: "flow.user",
			Email: "flow@example.org",
			Password: "s3cret-passphrase",
			DisplayName: "Flow User",
		});
		expect(registered.status).toBe(200);
		expect(registered.body).toEqual({ UserId: expect.stringMatching(/^[0-9a-f]{32}$/), UserName: "flow.user" });
		const userId = registered.body.UserId;

		const signIn = await plaza.http<AuthBody>("POST", "/auth/credentials", {
			UserName: "flow.user",
			Password: "s3cret-passphrase",
		});
		expect(signIn.status).toBe(200);
		expect(signIn.body).toMatchObject({ UserId: userId, UserName: "flow.user", DisplayName: "Flow User" });
		const token = signIn.body.SessionId!;
		expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/); // 192 random bits
		const cookies = signIn.headers.getSetCookie();
		expect(cookies).toContain(`ss-id=${token}; Path=/; HttpOnly; SameSite=Lax`);

		const withCookie = await plaza.http("GET", `/Users/${userId}`, undefined, { Cookie: cookieHeader(cookies) });
		const withHeader = await plaza.http("GET", `/Users/${userId}`, undefined, { "X-ss-id": token });
		const withBasic = await plaza.http("GET", `/Users/${userId}`, undefined, {
			Authorization: basic("flow.user", "s3cret-passphrase"),
		});
		const withEmailBasic = await plaza.http("GET", `/Users/${userId}`, undefined, {
			Authorization: basic("FLOW@example.org", "s3cret-passphrase"),
		});
		const withApiKey = await plaza.http("GET", `/Users/${userId}`, undefined, { Authorization: `Bearer ${ADMIN_KEY}` });
		for (const reply of [withCookie, withHeader, withBasic, withEmailBasic, withApiKey]) {
			expect(reply.status).toBe(200);
			expect(reply.body.Id).toBe(userId);
		}

		const current = await plaza.http<AuthBody>("GET", "/auth", undefined, { "X-ss-id": token });
		expect(current.status).toBe(200);
		expect(current.body).toEqual({ UserId: userId, UserName: "flow.user", DisplayName: "Flow User" });

		const logout = await plaza.http("GET", "/auth/logout", undefined, { Cookie: cookieHeader(cookies) });
		expect(logout.status).toBe(200);
		expect(logout.headers.getSetCookie()).toEqual(
			expect.arrayContaining([expect.stringMatching(/^ss-id=; Max-Age=0; Path=\/; HttpOnly/)]),
		);

		for (const headers of [{ Cookie: cookieHeader(cookies) }, { "X-ss-id": token }] as Array<Record<string, string>>) {
			const refused = await plaza.http<ErrorBody>("GET", `/Users/${userId}`, undefined, headers);
			expect(refused.status).toBe(401);
			expect(refused.body.ResponseStatus.ErrorCode).toBe("Unauthorized");
		}
		expect((await plaza.http("GET", "/auth", undefined, { "X-ss-id": token })).status).toBe(401);
	});

	test("AutoLogin returns a SessionId with the cookies, and Continue comes back as ReferrerUrl", async () => {
		const reply = await plaza.http<AuthBody>("POST", "/json/reply/Registration", {
			Email: "auto@example.org",
			Password: "long enough",
			AutoLogin: true,
			Continue: "/welcome",
		});
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({
			UserName: "auto@example.org",
			ReferrerUrl: "/welcome",
			SessionId: expect.any(String),
		});
		expect(reply.headers.getSetCookie()[0]).toBe(`ss-id=${reply.body.SessionId}; Path=/; HttpOnly; SameSite=Lax`);
		const me = await plaza.http("GET", `/Users/${reply.body.UserId}`, undefined, { "X-ss-id": reply.body.SessionId! });
		expect(me.status).toBe(200);
	});

	test("registration fills FirstName and LastName from DisplayName when they are not given", async () => {
		const session = await plaza.signUp({
			FirstName: undefined,
			LastName: undefined,
			DisplayName: "Grace Brewster Hopper",
		});
		const me = await session.http("GET", `/Users/${session.userId}`);
		expect(me.body).toMatchObject({ FirstName: "Grace", LastName: "Brewster Hopper" });
	});

	test("sign-in by every route: POST /auth with a provider, the generic route as Auth and as Authenticate, e-mail as user name", async () => {
		const user = await plaza.signUp({ Email: "routes@example.org" });
		const replies = [
			await plaza.http<AuthBody>("POST", "/auth", {
				provider: "credentials",
				UserName: user.userName,
				Password: user.password,
			}),
			await plaza.http<AuthBody>("POST", "/json/reply/Auth", {
				provider: "credentials",
				UserName: user.userName,
				Password: user.password,
			}),
			await plaza.http<AuthBody>("POST", "/json/reply/Authenticate", {
				provider: "credentials",
				userName: "ROUTES@example.org",
				password: user.password,
			}),
		];
		for (const reply of replies) {
			expect(reply.status).toBe(200);
			expect(reply.body.UserId).toBe(user.userId);
		}
		expect(new Set(replies.map(r => r.body.SessionId)).size).toBe(3);
	});

	test("RememberMe sets ss-pid and ss-opt=perm that outlive the browser session", async () => {
		const user = await plaza.signUp();
		const reply = await plaza.http<AuthBody>("POST", "/auth/credentials", {
			UserName: user.userName,
			Password: user.password,
			RememberMe: true,
		});
		const token = reply.body.SessionId!;
		const cookies = reply.headers.getSetCookie();
		expect(cookies).toEqual([
			`ss-id=${token}; Path=/; HttpOnly; SameSite=Lax`,
			`ss-pid=${token}; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax`,
			"ss-opt=perm; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax",
		]);
		const withPermanentOnly = await plaza.http("GET", `/Users/${user.userId}`, undefined, {
			Cookie: `ss-pid=${token}; ss-opt=perm`,
		});
		expect(withPermanentOnly.status).toBe(200);
	});

	test("behind HTTPS (a trusted proxy says so) cookies are Secure and HSTS is sent", async () => {
		const secure = await startPlaza({ services: ["users"], trustProxy: 1 });
		try {
			const user = await secure.signUp();
			const reply = await secure.http(
				"POST",
				"/auth/credentials",
				{ UserName: user.userName, Password: user.password },
				{ "X-Forwarded-Proto": "https" },
			);
			expect(reply.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
			expect(reply.headers.get("strict-transport-security")).toContain("max-age=");
		} finally {
			await secure.stop();
		}
	});

	test.each([
		["a wrong password", { UserName: "known.user", Password: "not the password" }],
		["an unknown user", { UserName: "nobody.here", Password: "whatever it is" }],
	])("%s is 401 Unauthorized", async (_case, credentials) => {
		await plaza.http("POST", "/register", { UserName: "known.user", Password: "the password 1" });
		const reply = await plaza.http<ErrorBody>("POST", "/auth/credentials", credentials);
		expect(reply.status).toBe(401);
		expect(reply.body.ResponseStatus).toMatchObject({
			ErrorCode: "Unauthorized",
			Message: "Invalid UserName or Password",
		});
		expect(reply.headers.getSetCookie()).toEqual([]);
	});

	test("wrong Basic credentials and an unknown API key are 401, never anonymous", async () => {
		const user = await plaza.signUp();
		for (const authorization of [basic(user.userName, "wrong password"), "Bearer not-a-key", "Negotiate abc"]) {
			const reply = await plaza.http<ErrorBody>("GET", "/auth", undefined, { Authorization: authorization });
			expect(reply.status).toBe(401);
		}
	});

	test.each(["twitter", "facebook", "github", "digest", "nonsense"])(
		"the provider %s is not configured: 404",
		async provider => {
			const reply = await plaza.http<ErrorBody>("POST", `/auth/${provider}`, { UserName: "x", Password: "y" });
			expect(reply.status).toBe(404);
			expect(reply.body.ResponseStatus.ErrorCode).toBe("NotFound");
		},
	);

	test("a user name or e-mail address registers once: 409 AlreadyExists naming the field", async () => {
		await plaza.http("POST", "/register", { UserName: "taken", Email: "taken@example.org", Password: "password one" });
		const before = await plaza.count("users", "users");
		const sameName = await plaza.http<ErrorBody>("POST", "/register", { UserName: "TAKEN", Password: "password two" });
		const sameEmail = await plaza.http<ErrorBody>("POST", "/register", {
			UserName: "other",
			Email: "Taken@Example.org",
			Password: "password two",
		});
		expect(sameName.status).toBe(409);
		expect(sameName.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "AlreadyExists", FieldName: "UserName" }),
		]);
		expect(sameEmail.status).toBe(409);
		expect(sameEmail.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "AlreadyExists", FieldName: "Email" }),
		]);
		expect(await plaza.count("users", "users")).toBe(before);
	});

	test("a weak password, or neither UserName nor Email, is a 400 field error and creates nothing", async () => {
		const before = await plaza.count("users", "users");
		const weak = await plaza.http<ErrorBody>("POST", "/register", { UserName: "weakling", Password: "short" });
		expect(weak.status).toBe(400);
		expect(weak.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "MinimumLength", FieldName: "Password" }),
		]);
		const nameless = await plaza.http<ErrorBody>("POST", "/register", { Password: "long enough password" });
		expect(nameless.status).toBe(400);
		expect(nameless.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "NotEmpty", FieldName: "UserName" }),
		]);
		expect(await plaza.count("users", "users")).toBe(before);
	});

	test("the stored record holds the password only as a salted scrypt hash", async () => {
		const password = "my very secret passphrase";
		const reply = await plaza.http<AuthBody>("POST", "/register", { UserName: "hashed", Password: password });
		const doc = await storedUser(plaza, reply.body.UserId!);
		const stored = JSON.stringify(doc);
		expect(stored).not.toContain(password);
		expect(stored).not.toContain(Buffer.from(password).toString("base64"));
		expect(doc?.password_hash).toMatch(/^scrypt\$\d+\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
		expect(doc?.digest_ha1 ?? null).toBeNull(); // NULL in SQL, absent on MongoDB
		const other = await plaza.http<AuthBody>("POST", "/register", { UserName: "hashed2", Password: password });
		expect((await storedUser(plaza, other.body.UserId!))?.password_hash).not.toBe(doc?.password_hash);
		expect(JSON.stringify(await plaza.admin("GET", `/Users/${reply.body.UserId}`))).not.toContain("scrypt");
	});

	test("responses carry the security headers", async () => {
		const reply = await plaza.http("GET", "/health");
		expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
		expect(reply.headers.get("x-frame-options")).toBe("DENY");
		expect(reply.headers.get("content-security-policy")).toContain("default-src 'none'");
		expect(reply.headers.get("cache-control")).toBe("no-store");
		expect(reply.headers.get("strict-transport-security")).toBeNull();
	});
});

describe("acting only as oneself", () => {
	const {
		plaza,
		users: [ann, bob],
	} = plazaForSuite({ services: ["users"], users: [{ FirstName: "Ann" }, { FirstName: "Bob" }] });

	test("a user updates their own profile by PUT /Users/{Id} and the generic route", async () => {
		const rest = await ann.http("PUT", `/Users/${ann.userId}`, {
			FirstName: "Annie",
			LastName: "Member",
			JobTitle: "Writer",
		});
		expect(rest.status).toBe(200);
		expect(rest.body).toMatchObject({ Id: ann.userId, FirstName: "Annie", JobTitle: "Writer" });
		const generic = await ann.http("POST", "/json/reply/UpdateUser", {
			Id: ann.userId,
			FirstName: "Ann",
			LastName: "Member",
		});
		expect(generic.status).toBe(200);
		expect(generic.body).toMatchObject({ FirstName: "Ann", JobTitle: "Writer" });
	});

	test("B cannot update A's profile: 403, and A's record is unchanged", async () => {
		const before = await storedUser(plaza, ann.userId);
		const reply = await bob.http<ErrorBody>("PUT", `/Users/${ann.userId}`, { FirstName: "Hacked", LastName: "By Bob" });
		expect(reply.status).toBe(403);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("Forbidden");
		const generic = await bob.http<ErrorBody>("POST", "/json/reply/UpdateUser", {
			Id: ann.userId,
			FirstName: "Hacked",
			LastName: "By Bob",
		});
		expect(generic.status).toBe(403);
		expect(await storedUser(plaza, ann.userId)).toEqual(before);
	});

	test("a user cannot set internal properties through their own update", async () => {
		const reply = await bob.http("PUT", `/Users/${bob.userId}`, {
			FirstName: "Bob",
			LastName: "Member",
			Cloaked: true,
		});
		expect(reply.status).toBe(200);
		expect(reply.body.Cloaked).toBe(false);
	});

	test("the admin acts for anyone", async () => {
		const reply = await plaza.admin("PUT", `/Users/${ann.userId}`, { FirstName: "Ann", LastName: "Edited By Admin" });
		expect(reply.status).toBe(200);
		expect(reply.body.LastName).toBe("Edited By Admin");
	});

	test("an anonymous caller must sign in: 401", async () => {
		for (const [method, route] of [
			["GET", "/Users"],
			["GET", `/Users/${ann.userId}`],
			["PUT", `/Users/${ann.userId}`],
		]) {
			const reply = await plaza.http<ErrorBody>(
				method,
				route,
				method === "PUT" ? { FirstName: "A", LastName: "B" } : undefined,
			);
			expect(reply.status).toBe(401);
		}
	});
});

describe("abuse limits", () => {
	test("repeated failed sign-ins reach 429 with Retry-After, even with the right password afterwards", async () => {
		const plaza = await startPlaza({
			services: ["users"],
			auth: { ...(await import("../shared/config")).defaultConfig().auth, maxFailuresPerAccount: 3 },
		});
		try {
			const user = await plaza.signUp();
			for (let i = 0; i < 3; i++) {
				expect(
					(await plaza.http("POST", "/auth/credentials", { UserName: user.userName, Password: `wrong ${i}` })).status,
				).toBe(401);
			}
			const locked = await plaza.http<ErrorBody>("POST", "/auth/credentials", {
				UserName: user.userName,
				Password: user.password,
			});
			expect(locked.status).toBe(429);
			expect(locked.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
			const viaBasic = await plaza.http("GET", "/auth", undefined, {
				Authorization: basic(user.userName, user.password),
			});
			expect(viaBasic.status).toBe(429);
			// Another account from the same address is not locked by this one.
			const other = await plaza.signUp();
			expect(
				(await plaza.http("POST", "/auth/credentials", { UserName: other.userName, Password: other.password })).status,
			).toBe(200);
		} finally {
			await plaza.stop();
		}
	});

	test("failures from one address across many accounts lock that address", async () => {
		const plaza = await startPlaza({
			services: ["users"],
			auth: { ...(await import("../shared/config")).defaultConfig().auth, maxFailuresPerAddress: 4 },
		});
		try {
			for (let i = 0; i < 4; i++)
				await plaza.http("POST", "/auth/credentials", { UserName: `sprayed${i}`, Password: "guess guess" });
			const user = await plaza.signUp();
			const reply = await plaza.http("POST", "/auth/credentials", { UserName: user.userName, Password: user.password });
			expect(reply.status).toBe(429);
		} finally {
			await plaza.stop();
		}
	});

	test("each caller has a request budget per minute: 429 TooManyRequests with Retry-After past it", async () => {
		const plaza = await startPlaza({ services: ["users"], rateLimitPerMinute: 5 });
		try {
			const statuses: number[] = [];
			for (let i = 0; i < 6; i++) statuses.push((await plaza.http("GET", "/health")).status);
			expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
			const limited = await plaza.http<ErrorBody>("GET", "/health");
			expect(limited.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
			expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
			// The administrator's key has a budget of its own.
			expect((await plaza.admin("GET", "/health")).status).toBe(200);
		} finally {
			await plaza.stop();
		}
	});
});

describe("sessions last as long as they should", () => {
	test("a session survives a restart of the server", async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-sessions-"));
		try {
			const first = await startPlaza({ services: ["users"], store: { kind: "sqlite", dir } });
			const user = await first.signUp();
			await first.stop();
			const second = await startPlaza({ services: ["users"], store: { kind: "sqlite", dir } });
			try {
				const reply = await second.http("GET", `/Users/${user.userId}`, undefined, { "X-ss-id": user.token });
				expect(reply.status).toBe(200);
			} finally {
				await second.stop();
			}
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});

	test("sessions slide while used and expire when idle; the store keeps only a hash of the token", async () => {
		const defaults = (await import("../shared/config")).defaultConfig();
		const plaza = await startPlaza({ services: ["users"], auth: { ...defaults.auth, sessionTtlSeconds: 2 } });
		try {
			const user = await plaza.signUp();
			expect(await plaza.stored("sessions").find("sessions", { id: user.token })).toBeUndefined();
			expect(
				await plaza.stored("sessions").find("sessions", { id: createHash("sha256").update(user.token).digest("hex") }),
			).toMatchObject({ user_id: user.userId });
			for (let i = 0; i < 5; i++) {
				await sleep(700);
				expect((await user.http("GET", "/auth")).status).toBe(200);
			}
			await sleep(2300);
			const expired = await user.http<ErrorBody>("GET", "/auth");
			expect(expired.status).toBe(401);
			expect((await user.http<WireRecord[]>("GET", "/Users")).status).toBe(401);
		} finally {
			await plaza.stop();
		}
	});

	test("a stale session cookie does not stop anyone from signing in again", async () => {
		const plaza = await startPlaza({ services: ["users"] });
		try {
			const user = await plaza.signUp();
			await user.http("GET", "/auth/logout");
			const again = await plaza.http(
				"POST",
				"/auth/credentials",
				{ UserName: user.userName, Password: user.password },
				{ Cookie: `ss-id=${user.token}` },
			);
			expect(again.status).toBe(200);
		} finally {
			await plaza.stop();
		}
	});
});

describe("HTTP Digest, when switched on", () => {
	const { plaza } = plazaForSuite({ services: ["users"], config: { auth: { ...defaultConfig().auth, digest: true } } });

	const md5 = (s: string) => createHash("md5").update(s).digest("hex");

	test("a 401 carries a Digest challenge; the answer to it signs in", async () => {
		const user = await plaza.signUp();
		const challenge = await plaza.http("GET", `/Users/${user.userId}`);
		expect(challenge.status).toBe(401);
		const header = challenge.headers.get("www-authenticate") ?? "";
		expect(header).toMatch(/^Digest realm="\/auth\/digest", qop="auth", nonce="[^"]+"/);
		const nonce = /nonce="([^"]+)"/.exec(header)![1];
		const uri = `/Users/${user.userId}`;
		const ha1 = md5(`${user.userName}:/auth/digest:${user.password}`);
		const response = md5(`${ha1}:${nonce}:00000001:abcdef:auth:${md5(`GET:${uri}`)}`);
		const authorization = `Digest username="${user.userName}", realm="/auth/digest", nonce="${nonce}", uri="${uri}", qop=auth, nc=00000001, cnonce="abcdef", response="${response}"`;
		const reply = await plaza.http("GET", uri, undefined, { Authorization: authorization });
		expect(reply.status).toBe(200);
		expect(reply.body.Id).toBe(user.userId);

		const wrong = authorization.replace(/response="[^"]+"/, `response="${md5("guess")}"`);
		expect((await plaza.http("GET", uri, undefined, { Authorization: wrong })).status).toBe(401);
		const otherUri = authorization.replace(`uri="${uri}"`, 'uri="/Users"');
		expect((await plaza.http("GET", uri, undefined, { Authorization: otherUri })).status).toBe(401);
	});

	test("Auth with provider digest turns a Digest-signed request into a session", async () => {
		const user = await plaza.signUp();
		const nonce = /nonce="([^"]+)"/.exec((await plaza.http("GET", "/auth")).headers.get("www-authenticate") ?? "")![1];
		const uri = "/auth/digest";
		const ha1 = md5(`${user.userName}:/auth/digest:${user.password}`);
		const response = md5(`${ha1}:${nonce}:00000001:xyz:auth:${md5(`POST:${uri}`)}`);
		const reply = await plaza.http<AuthBody>(
			"POST",
			uri,
			{},
			{
				Authorization: `Digest username="${user.userName}", realm="/auth/digest", nonce="${nonce}", uri="${uri}", qop=auth, nc=00000001, cnonce="xyz", response="${response}"`,
			},
		);
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ UserId: user.userId, SessionId: expect.any(String) });
	});
});

describe("CreateUser stays for administrators", () => {
	test("users it makes cannot sign in until they have credentials", async () => {
		const plaza = await startPlaza({ services: ["users"] });
		try {
			const made = await createUser(plaza, { UserName: "made.by.admin" });
			const reply = await plaza.http("POST", "/auth/credentials", {
				UserName: "made.by.admin",
				Password: "anything at all",
			});
			expect(made.Id).toBeDefined();
			expect(reply.status).toBe(401);
		} finally {
			await plaza.stop();
		}
	});
});
