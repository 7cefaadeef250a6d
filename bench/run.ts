import { AddressInfo } from "node:net";
import { Server } from "node:http";
import { createPlaza } from "../plaza";
import { defaultConfig } from "../shared/config";

/**
 * Request rates of Plaza's operations through the real gateway, side by side in one run.
 * Usage: npm run bench [-- seconds-per-scenario concurrency users]
 */
const [seconds = 3, concurrency = 16, users = 2000] = process.argv.slice(2).map(Number);
const adminKey = "bench-admin-key";

interface Scenario {
	name: string;
	request(i: number): { method: string; path: string; body?: unknown };
}

async function main(): Promise<void> {
	const broker = createPlaza(defaultConfig({ adminApiKey: adminKey, rateLimitPerMinute: 10_000_000 }));
	await broker.start();
	const server = (broker.getLocalService("gateway") as unknown as { server: Server }).server;
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const send = async (method: string, path: string, body?: unknown): Promise<{ Id: string }> => {
		const res = await fetch(base + path, {
			method,
			headers: { "Content-Type": "application/json", Authorization: `Bearer ${adminKey}` },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
		return (await res.json()) as { Id: string };
	};

	const ids: string[] = [];
	for (let i = 0; i < users; i += 50) {
		const batch = await Promise.all(Array.from({ length: Math.min(50, users - i) }, (_, j) => send("POST", "/Users", { FirstName: `B${i + j}`, LastName: "Bench" })));
		ids.push(...batch.map(u => u.Id));
	}

	const scenarios: Scenario[] = [
		{ name: "FindUser   GET /Users/{Id}", request: i => ({ method: "GET", path: `/Users/${ids[i % ids.length]}` }) },
		{ name: "FindUser   POST /json/reply", request: i => ({ method: "POST", path: "/json/reply/FindUser", body: { Id: ids[i % ids.length] } }) },
		{ name: "AllUsers   GET /Users (50)", request: i => ({ method: "GET", path: `/Users?Offset=${(i * 50) % users}` }) },
		{ name: "CreateUser POST /Users", request: i => ({ method: "POST", path: "/Users", body: { FirstName: `N${i}`, LastName: "Bench" } }) },
	];

	console.log(`Plaza benchmark: ${seconds}s per scenario, ${concurrency} concurrent clients, ${users} users, Node ${process.version}`);
	let baseline: number | undefined;
	for (const scenario of scenarios) {
		const latencies: number[] = [];
		let counter = 0;
		const deadline = Date.now() + seconds * 1000;
		await Promise.all(
			Array.from({ length: concurrency }, async () => {
				while (Date.now() < deadline) {
					const { method, path, body } = scenario.request(counter++);
					const started = process.hrtime.bigint();
					await send(method, path, body);
					latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
				}
			}),
		);
		latencies.sort((a, b) => a - b);
		const rate = latencies.length / seconds;
		baseline ??= rate;
		const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2);
		console.log(`${scenario.name.padEnd(30)} ${rate.toFixed(0).padStart(7)} req/s  x${(rate / baseline).toFixed(2)}  p50 ${pct(0.5)} ms  p99 ${pct(0.99)} ms`);
	}
	await broker.stop();
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
