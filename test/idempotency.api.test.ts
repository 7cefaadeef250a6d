import { createDecipheriv, createHmac, randomUUID } from "node:crypto";
import { ActionHandler, ActionSchema, Context, Middleware } from "moleculer";
import { ErrorBody, startPlaza, TestPlaza, WireRecord, plazaForSuite } from "./support/plaza";
import { envelope, postSoap, TYPES } from "./support/soap";

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** A test-only stub: the actions named answer `ms` later, as a loaded node would. */
function slow(ms: number, actions: string[]): Middleware {
	return {
		name: "SlowForTest",
		localAction(handler: ActionHandler, action: ActionSchema) {
			if (!actions.includes(action.name ?? "")) return handler;
			return async function slowed(this: unknown, ctx: Context) {
				const result: unknown = await handler.call(this as never, ctx);
				await sleep(ms);
				return result;
			};
		},
	};
}

/** A test-only stub: posts are written at once but their writer answers `ms` later, inside the operation. */
function slowPostWrites(plaza: TestPlaza, ms: number): void {
	const repo = (
		plaza.broker.getLocalService("posts") as unknown as {
			repo: { createPost: (...args: unknown[]) => Promise<unknown> };
		}
	).repo;
	const createPost = repo.createPost.bind(repo);
	repo.createPost = async (...args: unknown[]) => {
		const written = await createPost(...args);
		await sleep(ms);
		return written;
	};
}

const keyed = (key: string, headers: Record<string, string> = {}) => ({ "Idempotency-Key": key, ...headers });

describe("Idempotency-Key on writes", () => {
	const { plaza } = plazaForSuite({ services: ["users", "posts"] });

	it("a retry with the same key makes one record and gets the first answer again, status and body", async () => {
		const registration = { UserName: `once_${Date.now()}`, Password: "correct horse battery", AutoLogin: true };
		const users = await plaza.count("users", "users");
		const key = randomUUID();
		const first = await plaza.http("POST", "/register", registration, keyed(key));
		const again = await plaza.http("POST", "/register", registration, keyed(key));
		expect(first.status).toBe(200);
		expect(again.status).toBe(200);
		expect(again.text).toBe(first.text);
		// The session the first answer opened is the one the retry's cookie carries.
		expect(again.headers.get("set-cookie")).toContain(String(first.body.SessionId));
		expect(await plaza.count("users", "users")).toBe(users + 1);
		// Without a key, the same request is a second attempt: 409, as before.
		const unkeyed = await plaza.http<ErrorBody>("POST", "/register", registration);
		expect(unkeyed.status).toBe(409);
	});

	it("keeps the same answer across surfaces and field order, and a refusal is answered again as it was", async () => {
		const user = await plaza.signUp();
		const key = randomUUID();
		const rest = await user.http(
			"POST",
			"/Posts",
			{ AuthorId: user.userId, Content: "once only", IsPrivate: false },
			keyed(key),
		);
		const generic = await user.http(
			"POST",
			"/json/reply/CreatePost",
			{ IsPrivate: false, Content: "once only", AuthorId: user.userId },
			keyed(key),
		);
		expect(rest.status).toBe(200);
		expect(generic.text).toBe(rest.text);
		expect(await plaza.stored("posts").count("posts", { author_id: user.userId })).toBe(1);

		const taken = { UserName: user.userName, Password: "correct horse battery" };
		const refusalKey = randomUUID();
		const refused = await plaza.http<ErrorBody>("POST", "/register", taken, keyed(refusalKey));
		expect(refused.status).toBe(409);
		expect((await plaza.http("POST", "/register", taken, keyed(refusalKey))).text).toBe(refused.text);
	});

	it("the same key with a different request answers 422 and runs nothing", async () => {
		const user = await plaza.signUp();
		const key = randomUUID();
		expect((await user.http("POST", "/Posts", { AuthorId: user.userId, Content: "first" }, keyed(key))).status).toBe(
			200,
		);
		const other = await user.http<ErrorBody>(
			"POST",
			"/Posts",
			{ AuthorId: user.userId, Content: "second" },
			keyed(key),
		);
		expect(other.status).toBe(422);
		expect(other.body.ResponseStatus.ErrorCode).toBe("IdempotencyKeyReused");
		const rows = await plaza.stored("posts").all("posts", { author_id: user.userId });
		expect(rows.map(r => r.content)).toEqual(["first"]);
	});

	it("keys are each caller's own: the same key from two users makes two records", async () => {
		const [ada, bob] = [await plaza.signUp(), await plaza.signUp()];
		const key = randomUUID();
		const a = await ada.http("POST", "/Posts", { AuthorId: ada.userId, Content: "same words" }, keyed(key));
		const b = await bob.http("POST", "/Posts", { AuthorId: bob.userId, Content: "same words" }, keyed(key));
		expect([a.status, b.status]).toEqual([200, 200]);
		expect(a.body.Id).not.toBe(b.body.Id);
	});

	it("a malformed key is refused before anything runs; reads ignore the header", async () => {
		const user = await plaza.signUp();
		const bad = await user.http<ErrorBody>(
			"POST",
			"/Posts",
			{ AuthorId: user.userId, Content: "x" },
			keyed("naïve key"),
		);
		expect(bad.status).toBe(400);
		expect(bad.body.ResponseStatus.Errors[0].FieldName).toBe("Idempotency-Key");
		expect((await user.http("GET", `/Users/${user.userId}`, undefined, keyed(randomUUID()))).status).toBe(200);
	});

	it("a batch's requests each run once under one key", async () => {
		const user = await plaza.signUp();
		const key = randomUUID();
		const batch = [
			{ AuthorId: user.userId, Content: "one" },
			{ AuthorId: user.userId, Content: "two" },
		];
		const first = await user.http("POST", "/json/reply/CreatePost[]", batch, keyed(key));
		const again = await user.http("POST", "/json/reply/CreatePost[]", batch, keyed(key));
		expect(first.status).toBe(200);
		expect(again.text).toBe(first.text);
		const rows = await plaza.stored("posts").all("posts", { author_id: user.userId });
		expect(rows.map(r => String(r.content)).sort()).toEqual(["one", "two"]);
	});

	it("the OpenAPI description offers the header on writes only", async () => {
		type Doc = { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> };
		const doc = (await plaza.http<Doc>("GET", "/openapi.json")).body;
		const headerOf = (path: string, method: string) =>
			doc.paths[path][method].parameters?.some(p => p.in === "header" && p.name === "Idempotency-Key");
		expect(headerOf("/Posts", "post")).toBe(true);
		expect(headerOf("/Posts/{Id}", "get")).toBe(false);
	});

	it("the store keeps neither the key nor the answer in clear (it may hold a session id)", async () => {
		const key = randomUUID();
		const reply = await plaza.http(
			"POST",
			"/register",
			{ UserName: `sealed_${Date.now()}`, Password: "correct horse battery", AutoLogin: true },
			keyed(key),
		);
		// Keys live beside the records of the domain that ran the write (see runOnce).
		const rows = await plaza.stored("users").all("idempotency_keys");
		const stored = JSON.stringify(rows);
		expect(stored).not.toContain(key);
		expect(stored).not.toContain(String(reply.body.SessionId));
		expect(stored).not.toContain("correct horse battery");
	});
	it("a caller who is not signed in cannot test a guessed password against another's key: each guess is a real sign-in", async () => {
		const victim = await plaza.signUp();
		const key = randomUUID();
		const signedIn = await plaza.http<{ SessionId: string }>(
			"POST",
			"/auth/credentials",
			{ UserName: victim.userName, Password: victim.password },
			keyed(key),
		);
		expect(signedIn.status).toBe(200);
		// Same address, same key, a wrong guess: refused as a sign-in (401, counted by the sign-in limits), not 422
		// "another request".
		const guess = await plaza.http<ErrorBody>(
			"POST",
			"/auth/credentials",
			{ UserName: victim.userName, Password: "a wrong guess" },
			keyed(key),
		);
		expect(guess.status).toBe(401);
		expect(guess.text).not.toContain(signedIn.body.SessionId);
	});

	it("one who reads the store and knows the key still cannot open the answer: it is sealed with the server's secret", async () => {
		const user = await plaza.signUp();
		const key = randomUUID();
		expect(
			(await user.http("POST", "/Posts", { AuthorId: user.userId, Content: "sealed for the server" }, keyed(key)))
				.status,
		).toBe(200);
		// What a key alone once opened: a secret derived from the key and the caller's scope.
		const fromKeyAlone = createHmac("sha256", key).update(`plaza idempotency\0user:${user.userId}`).digest();
		const rows = await plaza.stored("posts").all("idempotency_keys");
		const opened = rows.filter(row => typeof row.answer === "string" && opens(fromKeyAlone, row.answer));
		expect(rows.length).toBeGreaterThan(0);
		expect(opened).toEqual([]);
	});
});

/** Whether an answer sealed as `iv.tag.ciphertext` (AES-256-GCM) opens under `secret`. */
function opens(secret: Buffer, answer: string): boolean {
	const [iv, tag, sealed] = answer.split(".").map(part => Buffer.from(part, "base64"));
	try {
		const decipher = createDecipheriv("aes-256-gcm", secret, iv);
		decipher.setAuthTag(tag);
		Buffer.concat([decipher.update(sealed), decipher.final()]);
		return true;
	} catch {
		return false;
	}
}

describe("a write whose answer does not come in time", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		const cluster = { ...(await import("../shared/config")).defaultConfig().cluster, requestTimeoutMs: 400 };
		plaza = await startPlaza({ cluster, services: ["posts"] }, [slow(1200, ["posts.find"])]);
		slowPostWrites(plaza, 1200);
	});
	afterAll(() => plaza.stop());

	it("is 504 OutcomeUnknown, not 503; a retry with its key gets 409 while it runs, then its answer", async () => {
		const user = await plaza.signUp();
		const key = randomUUID();
		const post = { AuthorId: user.userId, Content: "slow but sure" };
		const first = await user.http<ErrorBody>("POST", "/Posts", post, keyed(key));
		expect(first.status).toBe(504);
		expect(first.body.ResponseStatus.ErrorCode).toBe("OutcomeUnknown");
		expect(first.body.ResponseStatus.Message).toMatch(/same Idempotency-Key/);
		const during = await user.http<ErrorBody>("POST", "/Posts", post, keyed(key));
		expect(during.status).toBe(409);
		expect(during.body.ResponseStatus.ErrorCode).toBe("IdempotencyKeyInUse");
		await sleep(1200);
		const after = await user.http<WireRecord>("POST", "/Posts", post, keyed(key));
		expect(after.status).toBe(200);
		expect(after.body.Content).toBe("slow but sure");
		expect(await plaza.stored("posts").count("posts", { author_id: user.userId })).toBe(1);
	});

	it("is 504 without a key too, on the generic route and on SOAP; a read that times out stays 503", async () => {
		const user = await plaza.signUp();
		const generic = await user.http<ErrorBody>("POST", "/json/reply/CreatePost", {
			AuthorId: user.userId,
			Content: "generic",
		});
		expect(generic.status).toBe(504);
		expect(generic.body.ResponseStatus.Message).toMatch(/read before retrying/);
		const soap = await postSoap(
			plaza,
			envelope(`<CreatePost xmlns="${TYPES}"><AuthorId>${user.userId}</AuthorId><Content>soap</Content></CreatePost>`),
			{ "X-ss-id": user.token },
		);
		expect(soap.headers.get("x-status")).toBe("504");
		expect(soap.text).toContain("<ErrorCode>OutcomeUnknown</ErrorCode>");
		await sleep(1200);
		const written = await plaza.stored("posts").all("posts", { author_id: user.userId });
		expect(written).toHaveLength(2);
		const read = await user.http<ErrorBody>("GET", `/Posts/${String(written[0].id)}`);
		expect(read.status).toBe(503);
	});
});
