import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, RunningProcess, startMain, waitForHealthy } from "./support/process";

/** `npm start`'s own entry point, as a separate process on the embedded SQLite store. */
describe("the embedded server process", () => {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-process-"));
	const started: RunningProcess[] = [];
	const start = (env: Record<string, string>) => {
		const proc = startMain(env);
		started.push(proc);
		return proc;
	};
	afterAll(() => {
		for (const proc of started) if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
		fs.rmSync(dataDir, { recursive: true, force: true });
	});

	test("serves on PORT, keeps its data under DATA_DIR across a restart, and stops cleanly on SIGTERM", async () => {
		const port = await freePort();
		const url = `http://127.0.0.1:${port}`;
		const env = {
			PORT: String(port),
			DATA_DIR: dataDir,
			ADMIN_API_KEY: "process-admin-key-0123456789abcdef0123456789",
		};

		const first = start(env);
		await waitForHealthy(`${url}/health`, 15000, first);
		const created = await fetch(`${url}/Users`, {
			method: "POST",
			headers: {
				"Content-Type": "application/json",
				Authorization: "Bearer process-admin-key-0123456789abcdef0123456789",
			},
			body: JSON.stringify({ FirstName: "Durable", LastName: "Record", Email: "durable@example.org" }),
		});
		expect(created.status).toBe(200);
		const createdText = await created.text();
		const { Id } = JSON.parse(createdText) as { Id: string };

		first.child.kill("SIGTERM");
		expect(await first.exited).toBe(0);
		expect(fs.readdirSync(dataDir)).toContain("users.sqlite");

		const second = start(env);
		await waitForHealthy(`${url}/health`, 15000, second);
		const found = await fetch(`${url}/Users/${Id}`, {
			headers: { Authorization: "Bearer process-admin-key-0123456789abcdef0123456789" },
		});
		expect(found.status).toBe(200);
		expect(await found.text()).toBe(createdText);
		const duplicate = await fetch(`${url}/Users`, {
			method: "POST",
			headers: {
				"Content-Type": "application/json",
				Authorization: "Bearer process-admin-key-0123456789abcdef0123456789",
			},
			body: JSON.stringify({ FirstName: "Again", LastName: "Record", Email: "durable@example.org" }),
		});
		expect(duplicate.status).toBe(409);
		second.child.kill("SIGTERM");
		expect(await second.exited).toBe(0);
	});

	test.each([
		["a short admin key", { ADMIN_API_KEY: "change-me" }, /ADMIN_API_KEY must be at least 32 characters/],
		[
			"a known placeholder as admin key",
			{ ADMIN_API_KEY: "change-me-change-me-change-me-change-me" },
			/ADMIN_API_KEY is a placeholder/,
		],
		[
			"a transporter without a cluster secret",
			{ ADMIN_API_KEY: "", TRANSPORTER: "nats://127.0.0.1:4222" },
			/CLUSTER_SECRET must be set when TRANSPORTER is/,
		],
		[
			"a short cluster secret",
			{ ADMIN_API_KEY: "", TRANSPORTER: "nats://127.0.0.1:4222", CLUSTER_SECRET: "short" },
			/CLUSTER_SECRET must be at least 32 characters/,
		],
	])("refuses to start with %s, saying why, before it opens a port", async (_case, secrets, reason) => {
		const port = await freePort();
		const proc = start({ PORT: String(port), DATA_DIR: dataDir, ...secrets });
		expect(await proc.exited).toBe(1);
		expect(proc.output()).toMatch(reason);
		await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
	});
});
