import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { freePort, mainScript, RunningProcess, startMain, waitForHealthy } from "./support/process";
import { postgresTestsOn, testDatabase } from "./support/postgres";

/** The moment to die at: the key's answer about to be recorded, the write already committed. */
const answerOfKey = `${path.join(path.dirname(mainScript), "shared", "idempotency", "keys.sql.js")}#SqlIdempotencyKeys.answer`;
const hooks = path.join(__dirname, "support", "crash-hooks.js");
const engines = [["sqlite", true] as const, ["postgres", postgresTestsOn] as const]
	.filter(([, on]) => on)
	.map(([engine]) => engine);

/**
 * Issue 35, item 9: a keyed write whose node is killed (SIGKILL) after its commit and before its
 * answer is recorded is not made again by its retry, even once the key's claim has lapsed.
 */
describe.each(engines)("a keyed write killed between its commit and its answer, on %s", engine => {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-idempotency-crash-"));
	const database = engine === "postgres" ? testDatabase() : undefined;
	let proc: RunningProcess | undefined;

	afterAll(async () => {
		if (proc?.child.exitCode === null) proc.child.kill("SIGTERM");
		await proc?.exited;
		await database?.drop();
		fs.rmSync(dataDir, { recursive: true, force: true });
	});

	test("its retry, after a restart past the claim's lease, finds it done and makes nothing", async () => {
		await database?.create();
		const port = await freePort();
		const url = `http://127.0.0.1:${port}`;
		const env = {
			PORT: String(port),
			DATA_DIR: dataDir,
			PASSWORD_HASH_COST: "test",
			LOG_LEVEL: "error",
			...(database ? { DATABASE_URL: database.url } : {}),
		};
		const preload = `--require ${hooks} --disable-warning=ExperimentalWarning`;
		proc = startMain({ ...env, NODE_OPTIONS: preload, PLAZA_TEST_DIE_AT: answerOfKey });
		await waitForHealthy(`${url}/health`, 60_000, proc);

		const send = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
			fetch(`${url}${route}`, {
				method,
				headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		const registered = (await (
			await send("POST", "/register", {
				UserName: `crash_${Date.now()}`,
				Password: "correct horse battery",
				AutoLogin: true,
			})
		).json()) as { UserId: string; SessionId: string };
		const session = { "X-ss-id": registered.SessionId };
		const key = { "Idempotency-Key": randomUUID() };
		const post = { AuthorId: registered.UserId, Content: "made once" };

		const first = await send("POST", "/Posts", post, { ...session, ...key }).then(
			reply => reply.status,
			() => "cut off",
		);
		expect(first).toBe("cut off");
		expect(await proc.exited).toBe("SIGKILL");

		// Started again five minutes "later": any claim of the first request has lapsed by then.
		proc = startMain({ ...env, NODE_OPTIONS: preload, PLAZA_TEST_CLOCK_AHEAD_MS: String(5 * 60_000) });
		await waitForHealthy(`${url}/health`, 60_000, proc);
		const retry = await send("POST", "/Posts", post, { ...session, ...key });
		const body = (await retry.json()) as { ResponseStatus?: { ErrorCode: string } };
		expect([retry.status, body.ResponseStatus?.ErrorCode]).toEqual([409, "IdempotencyAnswerLost"]);
		const posts = (await (await send("GET", `/Users/${registered.UserId}/Posts`, undefined, session)).json()) as Array<{
			Content: string;
		}>;
		expect(posts.map(p => p.Content)).toEqual(["made once"]);
	}, 120_000);
});
