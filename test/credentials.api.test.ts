import { createHash } from "node:crypto";
import { ErrorBody, Session, startPlaza, TestPlaza } from "./support/plaza";
import { hashPassword } from "../shared/passwords";
import { defaultConfig } from "../shared/config";

// This suite checks the real cost: whatever the test run chose for the others, it hashes at OWASP's.
delete process.env.PASSWORD_HASH_COST;

/** The stored password hash's parts: scrypt$N$r$p$salt$key. */
async function storedHash(
	plaza: TestPlaza,
	userId: string,
): Promise<{ hash: string; N: number; r: number; p: number }> {
	const hash = String((await plaza.stored("users").find("users", { id: userId }))?.password_hash);
	const [, N, r, p] = hash.split("$");
	return { hash, N: Number(N), r: Number(r), p: Number(p) };
}

const basic = (user: { userName: string }, password: string) => ({
	Authorization: `Basic ${Buffer.from(`${user.userName}:${password}`).toString("base64")}`,
});

/** How long a request takes, in milliseconds, with its status. */
async function timed(send: () => Promise<{ status: number }>): Promise<{ ms: number; status: number }> {
	const started = process.hrtime.bigint();
	const { status } = await send();
	return { ms: Number(process.hrtime.bigint() - started) / 1e6, status };
}

/** Issue 13, items 4 and 5: password hashing cost and re-hash, Basic credentials kept briefly, Digest replays. */
describe("credentials", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		// A hash at OWASP's cost is 128 MiB and about 0.5 s alone; under a second test run on two cores a
		// sign-up took over the default 10 s and answered 504. The cost is what this suite checks, not the timeout.
		plaza = await startPlaza({
			services: ["users"],
			cluster: { ...defaultConfig().cluster, requestTimeoutMs: 25_000 },
		});
	});
	afterAll(() => plaza.stop());

	describe("password hashes", () => {
		test("a new password is stored as scrypt at OWASP's minimum: N = 2^17, r = 8, p = 1", async () => {
			const user = await plaza.signUp();
			expect(await storedHash(plaza, user.userId)).toMatchObject({ N: 131072, r: 8, p: 1 });
		});

		test("a hash below today's cost is replaced at the next sign-in, and the password still works", async () => {
			const user = await plaza.signUp();
			const old = await hashPassword(user.password, { N: 1 << 14, r: 8, p: 1 });
			await plaza.stored("users").update("users", { id: user.userId }, { password_hash: old });
			const signIn = await plaza.http("POST", "/auth/credentials", {
				UserName: user.userName,
				Password: user.password,
			});
			expect(signIn.status).toBe(200);
			const stored = await storedHash(plaza, user.userId);
			expect(stored).toMatchObject({ N: 131072, r: 8, p: 1 });
			expect(stored.hash).not.toBe(old);
			expect(
				(await plaza.http("POST", "/auth/credentials", { UserName: user.userName, Password: user.password })).status,
			).toBe(200);
			expect(
				(await plaza.http("POST", "/auth/credentials", { UserName: user.userName, Password: "not the password" }))
					.status,
			).toBe(401);
		});
	});

	describe("HTTP Basic", () => {
		let user: Session;
		beforeAll(async () => {
			user = await plaza.signUp();
		});

		test("a verified user name and password are kept briefly: the next request costs no scrypt", async () => {
			const path = `/Users/${user.userId}`;
			const first = await timed(() => plaza.http("GET", path, undefined, basic(user, user.password)));
			expect(first.status).toBe(200);
			expect(first.ms).toBeGreaterThan(50);
			const next: number[] = [];
			for (let i = 0; i < 3; i++) {
				const reply = await timed(() => plaza.http("GET", path, undefined, basic(user, user.password)));
				expect(reply.status).toBe(200);
				next.push(reply.ms);
			}
			// Against the first request's own time (a loaded machine slows both): a request that ran scrypt again would take
			// about as long.
			expect(Math.min(...next)).toBeLessThan(Math.max(20, first.ms / 5));
		});

		test("a wrong password is never taken for the kept one", async () => {
			await plaza.http("GET", `/Users/${user.userId}`, undefined, basic(user, user.password));
			expect(
				(await plaza.http("GET", `/Users/${user.userId}`, undefined, basic(user, `${user.password}x`))).status,
			).toBe(401);
			expect(
				(await plaza.http("GET", `/Users/${user.userId}`, undefined, basic(user, user.password.toUpperCase()))).status,
			).toBe(401);
		});

		// What these check does not depend on the cost, which would only make them slow (2 s each here).
		describe("at the test cost", () => {
			beforeAll(() => {
				process.env.PASSWORD_HASH_COST = "test";
			});
			afterAll(() => {
				delete process.env.PASSWORD_HASH_COST;
			});

			test("a changed password stops the old one at once, though it was verified moments ago", async () => {
				const changing = await plaza.signUp();
				const path = `/Users/${changing.userId}`;
				expect((await plaza.http("GET", path, undefined, basic(changing, changing.password))).status).toBe(200);
				const changed = await plaza.http(
					"PUT",
					path,
					{
						FirstName: "Changing",
						LastName: "Password",
						Password: "a brand new password",
						CurrentPassword: changing.password,
					},
					basic(changing, changing.password),
				);
				expect(changed.status).toBe(200);
				expect((await plaza.http("GET", path, undefined, basic(changing, changing.password))).status).toBe(401);
				expect((await plaza.http("GET", path, undefined, basic(changing, "a brand new password"))).status).toBe(200);
			});

			test("changing one's password needs the current one (a borrowed session is not enough)", async () => {
				const victim = await plaza.signUp();
				const missing = await victim.http<ErrorBody>("PUT", `/Users/${victim.userId}`, {
					FirstName: "Victim",
					LastName: "Member",
					Password: "hijacked password",
				});
				expect(missing.status).toBe(400);
				expect(missing.body.ResponseStatus.Errors).toEqual([expect.objectContaining({ FieldName: "CurrentPassword" })]);
				const wrong = await victim.http<ErrorBody>("PUT", `/Users/${victim.userId}`, {
					FirstName: "Victim",
					LastName: "Member",
					Password: "hijacked password",
					CurrentPassword: "a guess at it",
				});
				expect(wrong.status).toBe(400);
				expect(
					(await plaza.http("POST", "/auth/credentials", { UserName: victim.userName, Password: victim.password }))
						.status,
				).toBe(200);
			});

			test("a borrowed session is no oracle for the password: wrong CurrentPasswords meet the sign-in limits", async () => {
				const victim = await plaza.signUp();
				const before = (await storedHash(plaza, victim.userId)).hash;
				const change = (current: string) =>
					victim.http<ErrorBody>("PUT", `/Users/${victim.userId}`, {
						FirstName: "Victim",
						LastName: "Member",
						Password: "hijacked password",
						CurrentPassword: current,
					});
				for (let i = 0; i < 5; i++) expect((await change(`guess ${i}`)).status).toBe(400);
				const right = await change(victim.password);
				expect(right.status).toBe(429);
				expect(right.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
				expect((await storedHash(plaza, victim.userId)).hash).toBe(before);
			});

			test("a changed password ends the user's other sessions; the one that changed it goes on", async () => {
				const user = await plaza.signUp();
				const other = await plaza.http<{ SessionId: string }>("POST", "/auth/credentials", {
					UserName: user.userName,
					Password: user.password,
				});
				const otherSession = { "X-ss-id": other.body.SessionId };
				expect((await plaza.http("GET", "/auth", undefined, otherSession)).status).toBe(200);
				const changed = await user.http("PUT", `/Users/${user.userId}`, {
					FirstName: "Changing",
					LastName: "Password",
					Password: "another new password",
					CurrentPassword: user.password,
				});
				expect(changed.status).toBe(200);
				expect((await plaza.http("GET", "/auth", undefined, otherSession)).status).toBe(401);
				expect((await user.http("GET", "/auth")).status).toBe(200);
			});
		});
	});
});

describe("HTTP Digest nonce counts", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		const defaults = defaultConfig();
		plaza = await startPlaza({ services: ["users"], auth: { ...defaults.auth, digest: true } });
	});
	afterAll(() => plaza.stop());

	const md5 = (s: string) => createHash("md5").update(s).digest("hex");

	test("an answer replayed (same nonce and nc) is refused (401); a higher nc is fine, a lower one is not", async () => {
		const user = await plaza.signUp();
		const nonce = /nonce="([^"]+)"/.exec((await plaza.http("GET", "/auth")).headers.get("www-authenticate") ?? "")![1];
		const uri = `/Users/${user.userId}`;
		const ha1 = md5(`${user.userName}:/auth/digest:${user.password}`);
		const answer = (nc: string, cnonce: string) => {
			const response = md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${md5(`GET:${uri}`)}`);
			return {
				Authorization: `Digest username="${user.userName}", realm="/auth/digest", nonce="${nonce}", uri="${uri}", qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"`,
			};
		};
		const first = answer("00000001", "abc");
		expect((await plaza.http("GET", uri, undefined, first)).status).toBe(200);
		expect((await plaza.http("GET", uri, undefined, first)).status).toBe(401);
		expect((await plaza.http("GET", uri, undefined, answer("00000001", "another"))).status).toBe(401);
		expect((await plaza.http("GET", uri, undefined, answer("00000002", "abc"))).status).toBe(200);
		expect((await plaza.http("GET", uri, undefined, answer("00000002", "abc"))).status).toBe(401);
		expect((await plaza.http("GET", uri, undefined, answer("00000005", "def"))).status).toBe(200);
		expect((await plaza.http("GET", uri, undefined, answer("00000003", "def"))).status).toBe(401);
	});
});
