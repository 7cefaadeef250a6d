import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { AddressInfo } from "node:net";
import { Server } from "node:http";
import { ServiceBroker } from "moleculer";
import { ADMIN_KEY, ErrorBody, startPlaza, TestPlaza } from "./support/plaza";
import { describeCluster } from "./support/cluster";
import { TestNats } from "./support/nats";
import { testDatabase } from "./support/postgres";
import { defaultConfig, PlazaConfig } from "../shared/config";
import { createPlaza } from "../plaza";

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/**
 * Request budgets are counted in fixed minutes: a test that must stay within one starts with at
 * least 10 s of it left (each takes about a second; up to 5 s on a loaded machine). A wait of up to
 * 10 s, in one start of six, where waiting from 40 s on cost up to 20 s in one of three.
 */
async function earlyInAMinute(): Promise<void> {
	const intoMinute = Date.now() % 60_000;
	if (intoMinute > 50_000) await sleep(60_000 - intoMinute + 50);
}

/** More than the gateway's batching delay: by then what it counted has reached the shared counters. */
const countsSent = () => sleep(700);

const from = (address: string) => ({ "X-Forwarded-For": address });

const signInFrom = (plaza: TestPlaza, address: string, UserName: string, Password: string) =>
	plaza.http<ErrorBody>("POST", "/auth/credentials", { UserName, Password }, from(address));

const auth = (overrides: Partial<PlazaConfig["auth"]>) => ({ auth: { ...defaultConfig().auth, ...overrides } });

async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-limits-"));
	try {
		return await work(dir);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

describe("the request budget is the verified caller's, else the client address's", () => {
	test("a random X-ss-id per request buys no fresh budget: the address's is spent all the same", async () => {
		const plaza = await startPlaza({ services: ["users"], rateLimitPerMinute: 5 });
		try {
			await earlyInAMinute();
			const statuses: number[] = [];
			for (let i = 0; i < 6; i++)
				statuses.push(
					(await plaza.http("GET", "/health", undefined, { "X-ss-id": randomBytes(24).toString("base64url") })).status,
				);
			expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
			const limited = await plaza.http<ErrorBody>("GET", "/health", undefined, { "X-ss-id": "another-made-up-token" });
			expect(limited.status).toBe(429);
			expect(limited.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
		} finally {
			await plaza.stop();
		}
	});

	test("wrong credentials spend the address's budget: their 401s count, and a spent budget answers them 429", async () => {
		const plaza = await startPlaza({ services: ["users"], rateLimitPerMinute: 5 });
		try {
			await earlyInAMinute();
			const wrong = [
				{ Authorization: "Bearer not-the-key" },
				{ Authorization: `Basic ${Buffer.from("nobody:wrong password").toString("base64")}` },
				{ Authorization: "Scheme unknown" },
			];
			const statuses: number[] = [];
			for (let i = 0; i < 5; i++)
				statuses.push((await plaza.http("GET", "/health", undefined, wrong[i % wrong.length])).status);
			expect(statuses).toEqual([401, 401, 401, 401, 401]);
			const limited = await plaza.http<ErrorBody>("GET", "/health", undefined, wrong[0]);
			expect(limited.status).toBe(429);
			expect(limited.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			// The address's budget is spent for its anonymous requests too.
			expect((await plaza.http("GET", "/health")).status).toBe(429);
		} finally {
			await plaza.stop();
		}
	});

	test("a user's sessions share one budget: a second session buys no fresh one", async () => {
		const plaza = await startPlaza({ services: ["users"], rateLimitPerMinute: 8 });
		try {
			await earlyInAMinute();
			// Two requests of the address's budget, the user's own starts at the first signed-in request.
			const user = await plaza.signUp();
			const second = await plaza.http<{ SessionId: string }>("POST", "/auth/credentials", {
				UserName: user.userName,
				Password: user.password,
			});
			expect(second.status).toBe(200);
			const statuses: number[] = [];
			for (let i = 0; i < 9; i++) {
				const token = i % 2 === 0 ? user.token : second.body.SessionId;
				statuses.push((await plaza.http("GET", "/auth", undefined, { "X-ss-id": token })).status);
			}
			expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
			// The address's own budget is another one.
			expect((await plaza.http("GET", "/health")).status).toBe(200);
		} finally {
			await plaza.stop();
		}
	});

	test("behind one trusted proxy the client is the rightmost X-Forwarded-For entry: forged left ends change nothing", async () => {
		const plaza = await startPlaza({ services: ["users"], rateLimitPerMinute: 5, trustProxy: 1 });
		try {
			await earlyInAMinute();
			const statuses: number[] = [];
			for (let i = 0; i < 6; i++)
				statuses.push((await plaza.http("GET", "/health", undefined, from(`1.2.3.${i}, 203.0.113.7`))).status);
			expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
			expect((await plaza.http("GET", "/health", undefined, from("203.0.113.7"))).status).toBe(429);
			// Another client behind the same proxy has a budget of its own.
			expect((await plaza.http("GET", "/health", undefined, from("1.2.3.4, 203.0.113.8"))).status).toBe(200);
		} finally {
			await plaza.stop();
		}
	});

	test("a spent budget stays spent across a restart (the counters live in DATA_DIR)", async () => {
		await withTempDir(async dir => {
			await earlyInAMinute();
			const first = await startPlaza({ services: ["users"], rateLimitPerMinute: 5, store: { kind: "sqlite", dir } });
			try {
				const statuses: number[] = [];
				for (let i = 0; i < 6; i++) statuses.push((await first.http("GET", "/health")).status);
				expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
				await countsSent();
			} finally {
				await first.stop();
			}
			const second = await startPlaza({ services: ["users"], rateLimitPerMinute: 5, store: { kind: "sqlite", dir } });
			try {
				const reply = await second.http<ErrorBody>("GET", "/health");
				expect(reply.status).toBe(429);
				expect(reply.headers.get("x-rate-limit-remaining")).toBe("0");
				expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
			} finally {
				await second.stop();
			}
		});
	});
});

describeCluster("two gateways over NATS, on PostgreSQL", () => {
	const database = testDatabase();
	let nats: TestNats;
	const brokers: ServiceBroker[] = [];

	/** A Plaza node of its own broker in this process: all services, or only a gateway; its gateway's URL. */
	async function startNode(nodeId: string, services: string[] | undefined): Promise<string> {
		const cluster = {
			...defaultConfig().cluster,
			nodeId,
			secret: "limits-test-cluster-secret-0123456789abcdef",
			heartbeatIntervalSeconds: 1,
			heartbeatTimeoutSeconds: 3,
		};
		const broker = createPlaza(
			defaultConfig({
				adminApiKey: ADMIN_KEY,
				rateLimitPerMinute: 6,
				store: { kind: "postgres", url: database.url },
				transporter: nats.url,
				services,
				cluster,
			}),
		);
		brokers.push(broker);
		await broker.start();
		// Found over NATS by heartbeats, slower on a loaded machine: the test's own timeout bounds it.
		await broker.waitForServices(["users", "sessions", "limits"], 75_000);
		const server = (broker.getLocalService("gateway") as unknown as { server: Server }).server;
		return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	}

	beforeAll(async () => {
		await database.create();
		nats = await TestNats.start();
	});

	afterAll(async () => {
		for (const broker of brokers.reverse()) await broker.stop();
		await nats?.stop();
		await database.drop();
	});

	test("a client's budget is one across gateways: spent half on each, the next request is 429 on both", async () => {
		const first = await startNode("limits-all", undefined);
		const second = await startNode("limits-gateway", ["gateway"]);
		await earlyInAMinute();
		const health = async (url: string) => (await fetch(`${url}/health`)).status;
		const statuses: number[] = [];
		for (let i = 0; i < 3; i++) statuses.push(await health(first), await health(second));
		expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
		await countsSent();
		expect(await health(first)).toBe(429);
		expect(await health(second)).toBe(429);
	}, 90_000);
});

describe("failed sign-ins slow the guesser, not the owner", () => {
	test("five wrong passwords from one address: that address gets 429 for the account, the owner's right password from another is 200", async () => {
		const plaza = await startPlaza({ services: ["users"], trustProxy: 1 });
		try {
			const alice = await plaza.signUp();
			for (let i = 0; i < 5; i++)
				expect((await signInFrom(plaza, "198.51.100.1", alice.userName, `wrong ${i}`)).status).toBe(401);
			const locked = await signInFrom(plaza, "198.51.100.1", alice.userName, alice.password);
			expect(locked.status).toBe(429);
			expect(locked.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
			const owner = await signInFrom(plaza, "192.0.2.20", alice.userName, alice.password);
			expect(owner.status).toBe(200);
			expect(owner.body).toMatchObject({ UserId: alice.userId });
			// The owner's success elsewhere does not let the guesser's address go on.
			expect((await signInFrom(plaza, "198.51.100.1", alice.userName, "wrong again")).status).toBe(429);
			// Nor does the owner's password, just verified elsewhere, pass from the guesser's address.
			expect((await signInFrom(plaza, "198.51.100.1", alice.userName, alice.password)).status).toBe(429);
		} finally {
			await plaza.stop();
		}
	});

	test("guesses from many addresses spend the account's budget: a new address gets 429, the owner from where she signed in before 200", async () => {
		const plaza = await startPlaza({ services: ["users"], trustProxy: 1, ...auth({ accountFailureBudget: 6 }) });
		try {
			const alice = await plaza.signUp();
			expect((await signInFrom(plaza, "192.0.2.20", alice.userName, alice.password)).status).toBe(200);
			for (let i = 0; i < 6; i++)
				expect((await signInFrom(plaza, `198.51.100.${10 + i}`, alice.userName, `guess ${i}`)).status).toBe(401);
			// The guesser's next address is refused, and so is the one after.
			const guess = await signInFrom(plaza, "198.51.100.99", alice.userName, "guess 6");
			expect(guess.status).toBe(429);
			expect(guess.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			expect(Number(guess.headers.get("retry-after"))).toBeGreaterThan(3000);
			// Even the right password: a pair verified moments ago from another address is no answer here.
			expect((await signInFrom(plaza, "198.51.100.98", alice.userName, alice.password)).status).toBe(429);
			// Alice, from the address she signed in from before, still can.
			const owner = await signInFrom(plaza, "192.0.2.20", alice.userName, alice.password);
			expect(owner.status).toBe(200);
			expect(owner.body).toMatchObject({ UserId: alice.userId });
			// Another account is not touched by alice's spent budget.
			const bob = await plaza.signUp();
			expect((await signInFrom(plaza, "198.51.100.97", bob.userName, bob.password)).status).toBe(200);
		} finally {
			await plaza.stop();
		}
	});

	test("guesses sent all at once cannot all pass: no more than the limit are tried", async () => {
		const plaza = await startPlaza({ services: ["users"], trustProxy: 1 });
		try {
			const alice = await plaza.signUp();
			const replies = await Promise.all(
				Array.from({ length: 20 }, (_, i) => signInFrom(plaza, "198.51.100.1", alice.userName, `burst ${i}`)),
			);
			const statuses = replies.map(r => r.status);
			expect(statuses.filter(s => s === 401).length).toBeLessThanOrEqual(5);
			expect(statuses.filter(s => s !== 401).every(s => s === 429)).toBe(true);
			expect((await signInFrom(plaza, "192.0.2.20", alice.userName, alice.password)).status).toBe(200);
		} finally {
			await plaza.stop();
		}
	});

	test("failed sign-ins are still counted after a restart (embedded DATA_DIR)", async () => {
		await withTempDir(async dir => {
			const config = { trustProxy: 1, store: { kind: "sqlite" as const, dir } };
			const first = await startPlaza(config);
			const alice = await first.signUp();
			try {
				for (let i = 0; i < 5; i++)
					expect((await signInFrom(first, "198.51.100.1", alice.userName, `wrong ${i}`)).status).toBe(401);
			} finally {
				await first.stop();
			}
			const second = await startPlaza(config);
			try {
				expect((await signInFrom(second, "198.51.100.1", alice.userName, alice.password)).status).toBe(429);
				expect((await signInFrom(second, "192.0.2.20", alice.userName, alice.password)).status).toBe(200);
			} finally {
				await second.stop();
			}
		});
	});
});
