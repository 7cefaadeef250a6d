import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort, RunningProcess, startMain } from "./support/process";

/**
 * The first ten minutes of `npm start` as a user sees them in the terminal: start-up, requests, Ctrl-C, and JSON logs.
 */
describe("what `npm start` says", () => {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-startup-"));
	const started: RunningProcess[] = [];
	const start = (env: Record<string, string>) => {
		// LOG_LEVEL info is the default a user gets (the helper quiets it to warn otherwise).
		const proc = startMain({ DATA_DIR: dataDir, LOG_LEVEL: "info", ADMIN_API_KEY: "", PASSWORD_HASH_COST: "", ...env });
		started.push(proc);
		return proc;
	};
	afterAll(() => {
		for (const proc of started) if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
		fs.rmSync(dataDir, { recursive: true, force: true });
	});

	const lines = (proc: RunningProcess) =>
		proc
			.output()
			.split("\n")
			.filter(line => line.trim() !== "");
	const readyLine = /Plaza ready on (http:\/\/localhost:\d+) — API page (\S+), metadata (\S+)/;
	// Polls (and gives up at once if the process ends): a long limit costs nothing when all is well, and a loaded machine
	// boots slowly.
	const until = async (what: () => boolean, proc: RunningProcess, timeoutMs = 25_000) => {
		const deadline = Date.now() + timeoutMs;
		while (!what()) {
			if (Date.now() > deadline || proc.child.exitCode !== null)
				throw new Error(`gave up waiting; output:\n${proc.output()}`);
			await new Promise(resolve => setTimeout(resolve, 50));
		}
	};
	const ready = (proc: RunningProcess) => until(() => readyLine.test(proc.output()), proc);
	const services = [
		"$node",
		"caches",
		"description",
		"users",
		"sessions",
		"limits",
		"graph",
		"posts",
		"venues",
		"systems",
		"devices",
		"reservations",
		"media",
		"gateway",
	];
	/** A request whose body never comes: the gateway holds it while it stops, as it would a slow client. */
	const holdRequest = (port: number) =>
		new Promise<net.Socket>(resolve => {
			const socket = net.connect(port, "127.0.0.1", () => {
				socket.write(
					"POST /Users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
				);
				setTimeout(() => resolve(socket), 200);
			});
			socket.on("error", () => undefined);
		});

	test("one line says where Plaza is ready and what to open; Moleculer's chatter and route listings stay at debug", async () => {
		const port = await freePort();
		const first = start({ PORT: String(port) });
		await ready(first);
		const [, url, apiPage, metadata] = readyLine.exec(first.output()) ?? [];
		expect(url).toBe(`http://localhost:${port}`);
		expect(apiPage).toBe(`http://localhost:${port}/swagger-ui/`);
		expect(metadata).toBe(`http://localhost:${port}/metadata`);
		const atStart = lines(first);
		expect(atStart.filter(line => readyLine.test(line))).toHaveLength(1);
		// A fresh store says once that it migrated each schema; besides that, the ready line alone.
		expect(atStart.filter(line => !/Schema of \w+ migrated/.test(line)).length).toBeLessThanOrEqual(2);
		expect(first.output()).not.toMatch(
			/Service '\w+' started|service is registered|Moleculer v|Registered \d+ middleware|\b(GET|POST|PUT|DELETE|PATCH)\s+\/\S*\s*$/m,
		);
		expect((await fetch(apiPage)).status).toBe(200);
		first.child.kill("SIGTERM");
		expect(await first.exited).toBe(0);

		// On a store already migrated, starting says one line.
		const second = start({ PORT: String(port) });
		await ready(second);
		expect(lines(second)).toHaveLength(1);
		second.child.kill("SIGTERM");
		expect(await second.exited).toBe(0);
	});

	test("every request is one info line in the short format: method, path without its query, status, time, request id", async () => {
		const port = await freePort();
		const proc = start({ PORT: String(port) });
		await ready(proc);
		const answer = await fetch(`http://127.0.0.1:${port}/health?access_token=secret-in-query`, {
			headers: { "X-Request-ID": "startup-req-1" },
		});
		expect(answer.status).toBe(200);
		await until(() => /startup-req-1/.test(proc.output()), proc, 10_000);
		const requestLines = lines(proc).filter(line => line.includes("/health"));
		expect(requestLines).toHaveLength(1);
		expect(requestLines[0]).toMatch(/INFO\s+GATEWAY: GET \/health 200 \d+(\.\d+)? ms requestID=startup-req-1$/);
		expect(proc.output()).not.toContain("secret-in-query");
		proc.child.kill("SIGTERM");
		expect(await proc.exited).toBe(0);
	});

	test("Ctrl-C stops every service once, even with a request in progress", async () => {
		const port = await freePort();
		const proc = start({ PORT: String(port) });
		await ready(proc);
		const held = await holdRequest(port);
		proc.child.kill("SIGINT");
		// The other services stop while the gateway waits for the held request; then the client gives up.
		await until(() => /Service 'media' stopped/.test(proc.output()), proc, 10_000);
		await new Promise(resolve => setTimeout(resolve, 300));
		held.destroy();
		expect(await proc.exited).toBe(0);
		expect(proc.output().match(/SIGINT received/g)).toHaveLength(1);
		for (const name of services)
			expect({ name, stopped: proc.output().split(`Service '${name}' stopped.`).length - 1 }).toEqual({
				name,
				stopped: 1,
			});
		expect(proc.output().match(/ServiceBroker is stopped/g)).toHaveLength(1);
	});

	test("a second Ctrl-C while it waits for a request exits at once", async () => {
		const port = await freePort();
		const proc = start({ PORT: String(port) });
		await ready(proc);
		const held = await holdRequest(port);
		proc.child.kill("SIGINT");
		await until(() => /SIGINT received/.test(proc.output()), proc, 3000);
		const secondAt = Date.now();
		proc.child.kill("SIGINT");
		// The gateway would wait up to 10 s for the held request; the second signal does not (5 s: a loaded machine took
		// 3).
		expect(await proc.exited).toBe(130);
		expect(Date.now() - secondAt).toBeLessThan(5000);
		held.destroy();
		expect(proc.output()).toMatch(/SIGINT received again, exiting without waiting/);
	});

	describe("with LOG_FORMAT=json", () => {
		const jsonLines = (proc: RunningProcess) => lines(proc).map(line => JSON.parse(line) as Record<string, unknown>);

		test("an audit line (a failed sign-in) carries who and which request as keys, not inside its message", async () => {
			const port = await freePort();
			const proc = start({ PORT: String(port), LOG_FORMAT: "json", PASSWORD_HASH_COST: "test" });
			await ready(proc);
			const answer = await fetch(`http://127.0.0.1:${port}/auth?x=1`, {
				method: "POST",
				headers: { "Content-Type": "application/json", "X-Request-ID": "startup-audit-1" },
				body: JSON.stringify({ UserName: "mallory", Password: "not the password" }),
			});
			expect(answer.status).toBe(401);
			await until(() => /"path":"\/auth"/.test(proc.output()), proc, 5000);
			const audit = jsonLines(proc).find(line => line.message === "audit: sign-in failed");
			expect(audit).toMatchObject({
				level: "warn",
				event: "sign-in-failed",
				account: "mallory",
				requestID: "startup-audit-1",
			});
			expect(typeof audit?.address).toBe("string");
			const request = jsonLines(proc).find(line => line.event === "request" && line.path === "/auth");
			expect(request).toMatchObject({ level: "info", method: "POST", status: 401, requestID: "startup-audit-1" });
			proc.child.kill("SIGTERM");
			expect(await proc.exited).toBe(0);
		});

		test("a 5xx line carries the request id, path and caller as keys, and the error with its stack", async () => {
			const port = await freePort();
			// A gateway alone: the operation's service is nowhere, so the request fails with 503.
			const proc = start({ PORT: String(port), LOG_FORMAT: "json", SERVICES: "gateway" });
			await ready(proc);
			const answer = await fetch(`http://127.0.0.1:${port}/Users?token=secret-in-query`, {
				headers: { "X-Request-ID": "startup-5xx-1" },
			});
			expect(answer.status).toBe(503);
			await until(() => /"level":"error"/.test(proc.output()), proc, 5000);
			const failure = jsonLines(proc).find(line => line.level === "error");
			expect(failure).toMatchObject({
				event: "request-failed",
				method: "GET",
				path: "/Users",
				status: 503,
				requestID: "startup-5xx-1",
				caller: null,
			});
			expect(failure?.error).toMatchObject({
				name: "ServiceNotFoundError",
				stack: expect.stringContaining("ServiceNotFoundError"),
			});
			expect(proc.output()).not.toContain("secret-in-query");
			proc.child.kill("SIGTERM");
			expect(await proc.exited).toBe(0);
		});
	});
});
