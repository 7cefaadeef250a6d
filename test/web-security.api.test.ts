import { createHash } from "node:crypto";
import { ADMIN_KEY, ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { envelope, postSoap, TYPES } from "./support/soap";
import { defaultConfig } from "../shared/config";

/** The one origin CORS_ORIGINS lists in these tests. */
const partner = "https://app.partner.example";
const evil = "https://evil.example";

const cookieOf = (user: Session) => ({ Cookie: `ss-id=${user.token}` });
const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe("cross-site writes signed in only by the session cookie (PRODUCT.md §3)", () => {
	let plaza: TestPlaza;
	let victim: Session;
	const posts = () => plaza.count("posts", "posts");
	const emailOf = async (user: Session) => (await plaza.admin("GET", `/Users/${user.userId}`)).body.Email;

	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"], corsOrigins: [partner] });
		victim = await plaza.signUp({ Email: `victim${Date.now()}@example.org` });
	});
	afterAll(() => plaza.stop());

	test("the issue's link: GET /json/reply/UpdateUser with the victim's cookie is 403 and the e-mail stays", async () => {
		const before = await emailOf(victim);
		const link = `/json/reply/UpdateUser?${query({ Id: victim.userId, FirstName: "Pwned", LastName: "Victim", Email: "attacker@evil.example" })}`;
		const reply = await plaza.http<ErrorBody>("GET", link, undefined, cookieOf(victim));
		expect(reply.status).toBe(403);
		expect(reply.body.ResponseStatus).toMatchObject({
			ErrorCode: "Forbidden",
			Message: expect.stringMatching(/GET.*X-ss-id/s),
		});
		expect(await emailOf(victim)).toBe(before);
		expect((await plaza.admin("GET", `/Users/${victim.userId}`)).body.FirstName).not.toBe("Pwned");
		// The same link by HEAD, and by the /api alias, is refused too.
		expect((await plaza.http("HEAD", link, undefined, cookieOf(victim))).status).toBe(403);
		expect((await plaza.http("GET", link.replace("/json/reply/", "/api/"), undefined, cookieOf(victim))).status).toBe(
			403,
		);
		expect(await emailOf(victim)).toBe(before);
	});

	test("GET /json/reply/CreatePost with the cookie is 403 and no post is created; X-ss-id by GET still posts", async () => {
		const before = await posts();
		const link = `/json/reply/CreatePost?${query({ AuthorId: victim.userId, Content: "Buy cheap pills" })}`;
		const reply = await plaza.http<ErrorBody>("GET", link, undefined, cookieOf(victim));
		expect(reply.status).toBe(403);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("Forbidden");
		expect(await posts()).toBe(before);
		// A header credential is never sent by a browser on its own: the generic route by GET works for it.
		expect((await victim.http("GET", link)).status).toBe(200);
		expect(await posts()).toBe(before + 1);
	});

	test("a cookie-only POST from a foreign Origin, Referer or Sec-Fetch-Site is 403; from Plaza itself or a CORS origin, 200", async () => {
		const before = await posts();
		const post = (headers: Record<string, string>) =>
			plaza.http<ErrorBody>(
				"POST",
				"/Posts",
				{ AuthorId: victim.userId, Content: "Hello" },
				{ ...cookieOf(victim), ...headers },
			);
		const foreign: Array<Record<string, string>> = [
			{ Origin: evil },
			{ Origin: "null" },
			{ "Sec-Fetch-Site": "cross-site" },
			{ Referer: `${evil}/forum/thread` },
			{ Origin: evil, Referer: `${plaza.url}/` },
			{ Origin: plaza.url, "Sec-Fetch-Site": "cross-site" },
		];
		for (const headers of foreign) {
			const refused = await post(headers);
			expect([JSON.stringify(headers), refused.status]).toEqual([JSON.stringify(headers), 403]);
			expect(refused.body.ResponseStatus).toMatchObject({
				ErrorCode: "Forbidden",
				Message: expect.stringContaining("another site"),
			});
		}
		expect(await posts()).toBe(before);

		expect((await post({ Origin: plaza.url, "Sec-Fetch-Site": "same-origin" })).status).toBe(200);
		expect((await post({ Referer: `${plaza.url}/api-page` })).status).toBe(200);
		const fromPartner = await post({ Origin: partner, "Sec-Fetch-Site": "same-site" });
		expect(fromPartner.status).toBe(200);
		expect(fromPartner.headers.get("access-control-allow-origin")).toBe(partner);
		expect(fromPartner.headers.get("access-control-allow-credentials")).toBe("true");
		expect(fromPartner.headers.get("vary")).toMatch(/Origin/);
		// Clients outside a browser send no Origin: the cookie still works for them by POST.
		expect((await post({})).status).toBe(200);
		expect(await posts()).toBe(before + 4);
	});

	test("REST writes by other verbs are refused alike (PUT /Users/{Id} from another site); reads from anywhere are answered", async () => {
		const before = await emailOf(victim);
		const update = { FirstName: "Pwned", LastName: "Victim", Email: "attacker@evil.example" };
		const refused = await plaza.http<ErrorBody>("PUT", `/Users/${victim.userId}`, update, {
			...cookieOf(victim),
			Origin: evil,
		});
		expect(refused.status).toBe(403);
		expect(await emailOf(victim)).toBe(before);
		// A read is not refused: the browser's same-origin policy keeps its answer from the other site.
		const read = await plaza.http<WireRecord>("GET", `/Users/${victim.userId}`, undefined, {
			...cookieOf(victim),
			"Sec-Fetch-Site": "cross-site",
			Referer: `${evil}/`,
		});
		expect(read.status).toBe(200);
		expect(read.body.Id).toBe(victim.userId);
		expect(read.headers.get("access-control-allow-origin")).toBeNull();
	});

	test("header credentials are not affected: X-ss-id or Bearer from a foreign Origin, even with the cookie too, write", async () => {
		const before = await posts();
		const headers = { Origin: evil, "Sec-Fetch-Site": "cross-site" };
		expect(
			(await victim.http("POST", "/Posts", { AuthorId: victim.userId, Content: "By header" }, headers)).status,
		).toBe(200);
		expect(
			(
				await victim.http(
					"POST",
					"/Posts",
					{ AuthorId: victim.userId, Content: "Header and cookie" },
					{ ...headers, ...cookieOf(victim) },
				)
			).status,
		).toBe(200);
		const asAdmin = await plaza.http(
			"POST",
			"/Posts",
			{ AuthorId: victim.userId, Content: "By the admin key" },
			{ ...headers, Authorization: `Bearer ${ADMIN_KEY}` },
		);
		expect(asAdmin.status).toBe(200);
		expect(await posts()).toBe(before + 3);
		// Without the refusal the cookie-only twin would have been a fourth post.
		expect(
			(
				await plaza.http(
					"POST",
					"/Posts",
					{ AuthorId: victim.userId, Content: "Cookie only" },
					{ ...headers, ...cookieOf(victim) },
				)
			).status,
		).toBe(403);
		expect(await posts()).toBe(before + 3);
	});

	test("SOAP: a cookie-only write from a foreign Origin is refused (Forbidden, X-Status 403) and writes nothing", async () => {
		const before = await posts();
		const xml = envelope(
			`<CreatePost xmlns="${TYPES}"><AuthorId>${victim.userId}</AuthorId><Content>Over SOAP</Content></CreatePost>`,
		);
		const refused = await postSoap(plaza, xml, { ...cookieOf(victim), Origin: evil });
		expect(refused.headers.get("x-status")).toBe("403");
		expect(refused.text).toMatch(/<CreatePostResponse[^>]*>.*<ErrorCode>Forbidden<\/ErrorCode>/s);
		expect(
			(await postSoap(plaza, xml, { ...cookieOf(victim), "Sec-Fetch-Site": "cross-site" })).headers.get("x-status"),
		).toBe("403");
		expect(await posts()).toBe(before);
		// From Plaza's own origin, or with the session in X-ss-id, the same call posts.
		const own = await postSoap(plaza, xml, { ...cookieOf(victim), Origin: plaza.url });
		expect([own.status, own.headers.get("x-status")]).toEqual([200, null]);
		expect((await postSoap(plaza, xml, { "X-ss-id": victim.token, Origin: evil })).headers.get("x-status")).toBeNull();
		expect(await posts()).toBe(before + 2);
	});
});

describe("CORS only for CORS_ORIGINS; OPTIONS runs nothing", () => {
	let withCors: TestPlaza;
	let withoutCors: TestPlaza;
	beforeAll(async () => {
		[withCors, withoutCors] = await Promise.all([
			startPlaza({ services: ["posts"], corsOrigins: [partner] }),
			startPlaza({ services: ["posts"] }),
		]);
	});
	afterAll(() => Promise.all([withCors?.stop(), withoutCors?.stop()]));

	const preflight = (plaza: TestPlaza, origin: string, path = "/Posts") =>
		plaza.http("OPTIONS", path, undefined, {
			Origin: origin,
			"Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "content-type,x-ss-id",
		});
	const corsHeadersOf = (headers: Headers) => [...headers.keys()].filter(name => name.startsWith("access-control-"));

	test("a preflight from a listed origin gets the CORS headers; another origin, or a Plaza without CORS_ORIGINS, none", async () => {
		const allowed = await preflight(withCors, partner);
		expect(allowed.status).toBe(204);
		expect(allowed.headers.get("allow")).toMatch(/POST/);
		expect(allowed.headers.get("access-control-allow-origin")).toBe(partner);
		expect(allowed.headers.get("access-control-allow-credentials")).toBe("true");
		expect(allowed.headers.get("access-control-allow-methods")).toMatch(/POST/);
		for (const header of ["Content-Type", "X-ss-id", "Authorization", "X-Request-ID"])
			expect(allowed.headers.get("access-control-allow-headers")).toContain(header);
		expect(allowed.headers.get("vary")).toMatch(/Origin/);

		const other = await preflight(withCors, evil);
		expect(other.status).toBe(204);
		expect(corsHeadersOf(other.headers)).toEqual([]);
		const unset = await preflight(withoutCors, partner);
		expect(unset.status).toBe(204);
		expect(corsHeadersOf(unset.headers)).toEqual([]);
		expect(corsHeadersOf((await withoutCors.http("GET", "/health", undefined, { Origin: partner })).headers)).toEqual(
			[],
		);
		// Failures carry the headers too, so that the partner's script can read why.
		const missing = await withCors.http("GET", "/no/such/route", undefined, { Origin: partner });
		expect([missing.status, missing.headers.get("access-control-allow-origin")]).toEqual([404, partner]);
	});

	test("OPTIONS of a write route with a complete body creates nothing, on REST and the generic route", async () => {
		const before = await withCors.count("users", "users");
		const registration = JSON.stringify({
			UserName: `preflighted${Date.now()}`,
			Password: "correct horse battery",
			FirstName: "Pre",
			LastName: "Flight",
			AutoLogin: true,
		});
		for (const path of ["/register", "/json/reply/Registration"]) {
			const reply = await withCors.http("OPTIONS", path, registration, {
				"Content-Type": "application/json",
				Origin: partner,
				"Access-Control-Request-Method": "POST",
			});
			expect(reply.status).toBe(204);
			expect(reply.text).toBe("");
			expect(reply.headers.getSetCookie()).toEqual([]);
			expect(reply.headers.get("access-control-allow-origin")).toBe(partner);
		}
		expect(await withCors.count("users", "users")).toBe(before);
	});
});

describe("JSONP, malformed cookies and malformed path escapes", () => {
	let plaza: TestPlaza;
	let user: Session;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		user = await plaza.signUp();
	});
	afterAll(() => plaza.stop());

	test("JSONP is never authenticated by a cookie: the 401 comes back wrapped, not the data; X-ss-id still counts", async () => {
		const byCookie = await plaza.http("GET", `/Users/${user.userId}?callback=steal`, undefined, cookieOf(user));
		expect(byCookie.status).toBe(401);
		expect(byCookie.headers.get("content-type")).toMatch(/^text\/javascript/);
		expect(byCookie.text).toMatch(/^steal\(\{"ResponseStatus":\{"ErrorCode":"Unauthorized"/);
		expect(byCookie.text).not.toContain(user.userName);
		const session = await plaza.http("GET", "/auth?callback=steal", undefined, cookieOf(user));
		expect(session.status).toBe(401);
		expect(session.text).not.toContain(user.token);

		const byHeader = await plaza.http("GET", `/Users/${user.userId}?callback=mine`, undefined, {
			"X-ss-id": user.token,
		});
		expect(byHeader.status).toBe(200);
		expect(byHeader.text).toMatch(new RegExp(`^mine\\(\\{.*"Id":"${user.userId}"`));
	});

	test("a malformed cookie never makes a 500: /health answers, headers still sign in, a malformed session is no session", async () => {
		for (const cookie of ["_ga=%ZZ", "ss-id=%ff", "ss-id=%", "a=%c0%ae; ss-pid=%E0%A4%A; ss-opt=perm"]) {
			expect([cookie, (await plaza.http("GET", "/health", undefined, { Cookie: cookie })).status]).toEqual([
				cookie,
				200,
			]);
		}
		const signedIn = await user.http("GET", `/Users/${user.userId}`, undefined, { Cookie: "_ga=%ZZ" });
		expect(signedIn.status).toBe(200);
		expect(signedIn.body.Id).toBe(user.userId);
		// A good session cookie beside a malformed one still works (the page's other cookies are not Plaza's).
		expect(
			(await plaza.http("GET", `/Users/${user.userId}`, undefined, { Cookie: `_ga=%ZZ; ss-id=${user.token}` })).status,
		).toBe(200);
		for (const cookie of ["ss-id=%ff", "ss-id=%", "ss-id=%00", "ss-pid=%E0%A4%A; ss-opt=perm"]) {
			const reply = await plaza.http<ErrorBody>("GET", `/Users/${user.userId}`, undefined, { Cookie: cookie });
			expect([cookie, reply.status, reply.body.ResponseStatus.ErrorCode]).toEqual([cookie, 401, "Unauthorized"]);
		}
	});

	test("a malformed %-escape in a path is a 400 naming the field, not a 500 or a 404", async () => {
		const cases: Array<[string, string, string]> = [
			["GET", "/auth/%ff", "provider"],
			["GET", "/Users/%", "Id"],
			["GET", "/Users/%c0%ae", "Id"],
			["GET", "/json/reply/%ff", "operation"],
			["POST", "/json/reply/%ff", "operation"],
			["GET", "/Users/%E0%A4%A/Feed", "UserId"],
			["GET", "/no%zzwhere", "path"],
		];
		for (const [method, path, field] of cases) {
			const reply = await user.http<ErrorBody>(method, path, method === "POST" ? {} : undefined);
			expect([method, path, reply.status, reply.body.ResponseStatus.ErrorCode]).toEqual([
				method,
				path,
				400,
				"InvalidValue",
			]);
			expect(reply.body.ResponseStatus.Errors).toEqual([
				expect.objectContaining({ FieldName: field, ErrorCode: "InvalidValue", Message: expect.stringContaining("%") }),
			]);
		}
		expect((await plaza.http("OPTIONS", "/Users/%ff")).status).toBe(400);
		// Well-formed escapes still route: %20 in a path field reaches the operation, which judges the value.
		expect((await user.http<ErrorBody>("GET", "/Users/not%20a%20guid")).body.ResponseStatus.Errors[0]).toMatchObject({
			FieldName: "Id",
		});
	});
});

describe("Basic and Digest credentials a browser replays by itself, and sign-ins from another site", () => {
	let plaza: TestPlaza;
	let victim: Session;
	const posts = () => plaza.count("posts", "posts");
	const sessions = () => plaza.count("sessions", "sessions");
	const md5 = (s: string) => createHash("md5").update(s).digest("hex");
	const basicOf = (user: Session) => ({
		Authorization: `Basic ${Buffer.from(`${user.userName}:${user.password}`).toString("base64")}`,
	});

	/**
	 * What a browser sends once its user has answered Plaza's Digest prompt: an answer to a fresh nonce, for this method
	 * and URL.
	 */
	async function digestOf(user: Session, method: string, uri: string): Promise<Record<string, string>> {
		const nonce = /nonce="([^"]+)"/.exec((await plaza.http("GET", "/auth")).headers.get("www-authenticate") ?? "")![1];
		const ha1 = md5(`${user.userName}:/auth/digest:${user.password}`);
		const response = md5(`${ha1}:${nonce}:00000001:c0ffee:auth:${md5(`${method}:${uri}`)}`);
		return {
			Authorization: `Digest username="${user.userName}", realm="/auth/digest", nonce="${nonce}", uri="${uri}", qop=auth, nc=00000001, cnonce="c0ffee", response="${response}"`,
		};
	}

	beforeAll(async () => {
		plaza = await startPlaza({
			services: ["posts", "systems"],
			corsOrigins: [partner],
			auth: { ...defaultConfig().auth, digest: true },
		});
		victim = await plaza.signUp();
	});
	afterAll(() => plaza.stop());

	test("a write with replayed Digest or Basic credentials from another site, or by GET, is 403 and writes nothing; without a foreign site it posts", async () => {
		const before = await posts();
		const post = (credentials: Record<string, string>, headers: Record<string, string>) =>
			plaza.http<ErrorBody>(
				"POST",
				"/Posts",
				{ AuthorId: victim.userId, Content: "Replayed" },
				{ ...credentials, ...headers },
			);
		const foreign: Array<[string, Record<string, string>]> = [
			["digest", { Origin: evil }],
			["digest", { "Sec-Fetch-Site": "cross-site" }],
			["basic", { Origin: evil }],
			["basic", { Referer: `${evil}/form` }],
		];
		for (const [scheme, headers] of foreign) {
			const refused = await post(
				scheme === "digest" ? await digestOf(victim, "POST", "/Posts") : basicOf(victim),
				headers,
			);
			expect([scheme, JSON.stringify(headers), refused.status]).toEqual([scheme, JSON.stringify(headers), 403]);
			expect(refused.body.ResponseStatus).toMatchObject({
				ErrorCode: "Forbidden",
				Message: expect.stringContaining("another site"),
			});
		}
		const link = `/json/reply/CreatePost?${query({ AuthorId: victim.userId, Content: "By a link" })}`;
		expect((await plaza.http("GET", link, undefined, await digestOf(victim, "GET", link))).status).toBe(403);
		expect(await posts()).toBe(before);

		// Clients outside a browser send no Origin; Plaza's own pages and CORS origins are no other site.
		expect((await post(await digestOf(victim, "POST", "/Posts"), {})).status).toBe(200);
		expect((await post(basicOf(victim), { Origin: plaza.url })).status).toBe(200);
		expect((await post(basicOf(victim), { Origin: partner })).status).toBe(200);
		expect(await posts()).toBe(before + 3);
	});

	test("JSONP takes no Basic or Digest credentials: another site's <script> reads no user and opens no session", async () => {
		const user = `/Users/${victim.userId}?callback=steal`;
		const read = await plaza.http("GET", user, undefined, await digestOf(victim, "GET", user));
		expect(read.status).toBe(401);
		expect(read.text).toMatch(/^steal\(\{"ResponseStatus":\{"ErrorCode":"Unauthorized"/);
		expect(read.text).not.toContain(victim.userName);
		expect((await plaza.http("GET", user, undefined, basicOf(victim))).text).not.toContain(victim.userName);

		const before = await sessions();
		const signIn = "/auth/digest?callback=steal";
		const minted = await plaza.http("GET", signIn, undefined, await digestOf(victim, "GET", signIn));
		expect(minted.status).toBe(401);
		expect(minted.text).not.toContain("SessionId");
		expect(minted.headers.getSetCookie()).toEqual([]);
		expect(await sessions()).toBe(before);
		// The admin key is never added by a browser: it still reads by JSONP.
		expect(
			(
				await plaza.http("GET", `/Users/${victim.userId}?callback=mine`, undefined, {
					Authorization: `Bearer ${ADMIN_KEY}`,
				})
			).text,
		).toMatch(/^mine\(\{.*"Id"/);
	});

	test("POST /auth/basic or /auth/digest with only a session opens no second session; with the Authorization header it signs in", async () => {
		const before = await sessions();
		for (const provider of ["basic", "digest"]) {
			for (const headers of [{ "X-ss-id": victim.token }, cookieOf(victim)]) {
				const refused = await plaza.http<ErrorBody>("POST", `/auth/${provider}`, { RememberMe: true }, headers);
				expect([provider, refused.status, refused.body.ResponseStatus.ErrorCode]).toEqual([
					provider,
					401,
					"Unauthorized",
				]);
				expect(refused.headers.getSetCookie()).toEqual([]);
			}
		}
		expect(await sessions()).toBe(before);
		const signedIn = await plaza.http<{ SessionId: string }>(
			"POST",
			"/auth/basic",
			{ RememberMe: true },
			basicOf(victim),
		);
		expect(signedIn.status).toBe(200);
		expect(signedIn.body.SessionId).toEqual(expect.any(String));
		expect(await sessions()).toBe(before + 1);
	});

	test("sign-in, registration and ConvertFromReservation from another site are 403 with no session held; clients outside a browser, Plaza and CORS origins go on", async () => {
		const users = () => plaza.count("users", "users");
		const [sessionsBefore, usersBefore] = [await sessions(), await users()];
		const credentials = { UserName: victim.userName, Password: victim.password };
		const foreign: Array<Record<string, string>> = [
			{ Origin: evil },
			{ Origin: "null" },
			{ "Sec-Fetch-Site": "cross-site" },
			{ Referer: `${evil}/login` },
		];
		for (const headers of foreign) {
			const refused = await plaza.http<ErrorBody>("POST", "/auth/credentials", credentials, headers);
			expect([JSON.stringify(headers), refused.status]).toEqual([JSON.stringify(headers), 403]);
			expect(refused.body.ResponseStatus).toMatchObject({
				ErrorCode: "Forbidden",
				Message: expect.stringContaining("another site"),
			});
			expect(refused.headers.getSetCookie()).toEqual([]);
		}
		// The attack as a page sends it: an auto-submitted form, the attacker's own account.
		const form = await plaza.http("POST", "/auth/credentials", query(credentials), {
			"Content-Type": "application/x-www-form-urlencoded",
			Origin: evil,
		});
		expect(form.status).toBe(403);
		const registration = { UserName: `planted${Date.now()}`, Password: "correct horse battery", AutoLogin: true };
		expect((await plaza.http("POST", "/register", registration, { Origin: evil })).status).toBe(403);
		const reservation = (await victim.http("POST", "/Reservations", { Email: `invited${Date.now()}@example.org` }))
			.body;
		const conversion = { UserName: `converted${Date.now()}`, Password: "welcome aboard" };
		expect(
			(
				await plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, conversion, {
					"Sec-Fetch-Site": "cross-site",
				})
			).status,
		).toBe(403);
		expect([await sessions(), await users()]).toEqual([sessionsBefore, usersBefore]);

		expect((await plaza.http("POST", "/auth/credentials", credentials)).status).toBe(200);
		expect(
			(
				await plaza.http("POST", "/auth/credentials", credentials, {
					Origin: plaza.url,
					"Sec-Fetch-Site": "same-origin",
				})
			).status,
		).toBe(200);
		expect((await plaza.http("POST", "/auth/credentials", credentials, { Origin: partner })).status).toBe(200);
		expect((await plaza.http("POST", "/register", registration)).status).toBe(200);
		expect((await plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, conversion)).status).toBe(200);
		expect(await users()).toBe(usersBefore + 2);
	});
});
