import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, RunningProcess, startMain, waitForHealthy } from "./support/process";

/**
 * Multi-record writes survive a kill -9 at any moment (issue 12, item 4): the embedded server runs
 * connections (two sides), memberships (with their count) and work items (with their map) under
 * concurrent load, is killed, restarted on the same DATA_DIR, and then every acknowledged write is
 * there whole and every cut-off one is whole or absent.
 */
const adminKey = "crash-admin-key-0123456789abcdef0123456789";
const cycles = Number(process.env.PLAZA_CRASH_CYCLES ?? 3);

type Json = Record<string, unknown> & { Id: string };

describe("kill -9 between the writes of a multi-record operation", () => {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-crash-"));
	let url = "";
	let env: Record<string, string> = {};
	let proc: RunningProcess | undefined;
	afterAll(() => {
		if (proc && proc.child.exitCode === null) proc.child.kill("SIGKILL");
		fs.rmSync(dataDir, { recursive: true, force: true });
	});

	const send = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: Json & Json[] }> => {
		const res = await fetch(url + route, { method, headers: { "Content-Type": "application/json", Authorization: `Bearer ${adminKey}` }, body: body === undefined ? undefined : JSON.stringify(body) });
		const text = await res.text();
		return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json & Json[] };
	};
	const start = async () => {
		proc = startMain(env);
		await waitForHealthy(`${url}/health`, 20000, proc);
	};

	test(`${cycles} cycles: acknowledged writes whole, cut-off ones whole or absent, counts exact`, async () => {
		const port = await freePort();
		url = `http://127.0.0.1:${port}`;
		env = { PORT: String(port), DATA_DIR: dataDir, ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_MINUTE: "10000000" };
		await start();
		const users = await Promise.all(Array.from({ length: 12 }, (_, i) => send("POST", "/Users", { FirstName: `Crash${i}`, LastName: "Test" }).then(r => r.body.Id)));
		const networks = await Promise.all(users.slice(0, 3).map((owner, i) => send("POST", "/Networks", { OwnerId: owner, Name: `Net ${i}` }).then(r => r.body.Id)));
		const system = (await send("POST", "/Systems", { Name: "Tracker" })).body.Id;

		const acknowledged = { connections: [] as Array<[string, string]>, members: [] as Array<[string, string]>, workItems: [] as Array<{ id: string; ref: string }> };
		const refsTried: string[] = [];
		for (let cycle = 0; cycle < cycles; cycle++) {
			let running = true;
			const writer = async (w: number) => {
				for (let i = 0; running; i++) {
					const kind = (w + i) % 3;
					try {
						if (kind === 0) {
							const [a, b] = [users[(w * 7 + i) % users.length], users[(w * 3 + i * 5 + 1) % users.length]];
							if (a === b) continue;
							const r = await send("POST", "/Connections", { OwnerId: a, ConnectToId: b });
							if (r.status === 200) acknowledged.connections.push([a, b]);
						} else if (kind === 1) {
							const [n, u] = [networks[i % networks.length], users[(w + i * 11) % users.length]];
							const r = await send("POST", `/Networks/${n}/Members`, { UserId: u });
							if (r.status === 200) acknowledged.members.push([n, u]);
						} else {
							const ref = `ref-${cycle}-${w}-${i}`;
							refsTried.push(ref);
							const r = await send("POST", "/WorkItems", { ShortDescription: "crash", ReferenceId: ref, SystemId: system, IsMappingRequired: true });
							if (r.status === 200) acknowledged.workItems.push({ id: r.body.Id, ref });
						}
					} catch {
						return; // the server is gone
					}
				}
			};
			const writers = Array.from({ length: 8 }, (_, w) => writer(w));
			await new Promise(resolve => setTimeout(resolve, 300 + Math.random() * 900));
			proc!.child.kill("SIGKILL");
			running = false;
			await Promise.all(writers);
			await proc!.exited;
			await start();
		}

		expect(acknowledged.connections.length + acknowledged.members.length + acknowledged.workItems.length).toBeGreaterThan(10);
		// Connections: every side has its counterpart (acknowledged or cut off), and every acknowledged pair is there.
		const sides = new Set<string>();
		for (const user of users) for (const c of (await send("GET", `/Users/${user}/Connections?Limit=1000`)).body) sides.add(`${String(c.OwnerId)}>${String(c.UserId)}`);
		for (const side of sides) expect(sides).toContain(side.split(">").reverse().join(">"));
		for (const [a, b] of acknowledged.connections) expect(sides).toContain(`${a}>${b}`);
		// Memberships: each network counts exactly its members, and every acknowledged one is a member.
		for (const network of networks) {
			const members = (await send("GET", `/Networks/${network}/Members?Limit=1000`)).body.map(m => m.UserId);
			expect((await send("GET", `/Networks/${network}`)).body.NumberOfMembers).toBe(members.length);
			for (const [n, u] of acknowledged.members) if (n === network) expect(members).toContain(u);
		}
		// Work items: no map without its item; every acknowledged item has its map; no reference is blocked.
		for (const { id, ref } of acknowledged.workItems) {
			expect((await send("GET", `/WorkItems/${id}`)).status).toBe(200);
			expect((await send("GET", `/ServiceMaps?ReferenceId=${ref}&SystemId=${system}`)).body.map(m => m.WorkItemId)).toEqual([id]);
		}
		for (const ref of refsTried) {
			const maps = (await send("GET", `/ServiceMaps?ReferenceId=${ref}&SystemId=${system}`)).body;
			if (maps.length) expect((await send("GET", `/WorkItems/${String(maps[0].WorkItemId)}`)).status).toBe(200);
			else expect((await send("POST", "/WorkItems", { ShortDescription: "retry", ReferenceId: ref, SystemId: system, IsMappingRequired: true })).status).toBe(200);
		}
		proc!.child.kill("SIGTERM");
		await proc!.exited;
	}, 120_000);
});
