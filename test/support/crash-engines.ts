import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crashAdminKey, CrashClient } from "./crash-client";
import { TestNats } from "./nats";
import { testDatabase } from "./postgres";
import { testMongoDatabase } from "./mongo";
import { freePort, RunningProcess, startMain, waitForHealthy } from "./process";

export type CrashEngine = "sqlite" | "postgres" | "mongo" | "cluster";

/** A Plaza deployment the crash prover writes to, kills one process of (the victim), and starts it again. */
export interface CrashTarget {
	api: CrashClient;
	/** SIGKILL to the victim; resolves once it has exited. */
	kill(): Promise<void>;
	/** Starts the victim again on the same store; resolves once Plaza answers through the gateway. */
	restart(): Promise<void>;
	stop(): Promise<void>;
}

/**
 * What every process gets: an admin key, budgets that the load never reaches, cheap password hashes (the hash's cost
 * has no part in what is proved).
 */
const common = {
	ADMIN_API_KEY: crashAdminKey,
	RATE_LIMIT_PER_MINUTE: "100000000",
	SIGNIN_MAX_FAILURES: "1000000",
	SIGNIN_MAX_FAILURES_PER_ADDRESS: "1000000",
	SIGNIN_MAX_FAILURES_PER_ACCOUNT: "1000000",
	PASSWORD_HASH_COST: "test",
	LOG_LEVEL: "error",
	// A conversion cut off midway is taken over after 2 × this (its lease): the checks wait that long.
	REQUEST_TIMEOUT_MS: "3000",
	// An account deletion cut off is finished by the sweep within two of these after the restart.
	ACCOUNT_DELETION_SWEEP_SECONDS: "1",
};

async function sigkill(proc: RunningProcess): Promise<void> {
	if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
	await proc.exited;
}

async function stopGently(procs: RunningProcess[]): Promise<void> {
	for (const p of procs) if (p.child.exitCode === null) p.child.kill("SIGTERM");
	await Promise.all(procs.map(p => p.exited));
}

/**
 * The embedded server alone (every service in one process), on SQLite in DATA_DIR, or on a PostgreSQL or MongoDB
 * database of its own.
 */
async function singleProcess(engine: "sqlite" | "postgres" | "mongo"): Promise<CrashTarget> {
	const port = await freePort();
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-crash-"));
	const database = engine === "postgres" ? testDatabase() : undefined;
	await database?.create();
	const mongo = engine === "mongo" ? testMongoDatabase() : undefined;
	const env = {
		...common,
		PORT: String(port),
		DATA_DIR: dataDir,
		...(database ? { DATABASE_URL: database.url } : {}),
		...(mongo ? { MONGO_URI: mongo.uri } : {}),
	};
	const api = new CrashClient(`http://127.0.0.1:${port}`);
	let proc = startMain(env);
	const healthy = () => waitForHealthy(`${api.url}/health`, 60_000, proc);
	await healthy();
	return {
		api,
		kill: () => sigkill(proc),
		restart: async () => {
			proc = startMain(env);
			await healthy();
		},
		stop: async () => {
			await stopGently([proc]);
			await database?.drop();
			await mongo?.drop();
			fs.rmSync(dataDir, { recursive: true, force: true });
		},
	};
}

/** Until `path` answers `status` through the gateway (the services have found one another). */
async function until(api: CrashClient, route: string, status: number, timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const got = await api.send("GET", route, undefined, undefined, 5_000).then(
			r => r.status,
			() => 0,
		);
		if (got === status) return;
		if (Date.now() > deadline) throw new Error(`${route} still answers ${got} after ${timeoutMs} ms`);
		await new Promise(resolve => setTimeout(resolve, 200));
	}
}

/**
 * The distributed mode: a process per service over a nats-server of its own, one PostgreSQL
 * database; only the posts node is killed, the others (the gateway among them) stay up.
 */
async function cluster(): Promise<CrashTarget> {
	const database = testDatabase();
	await database.create();
	const nats = await TestNats.start();
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-crash-cluster-"));
	const env = {
		...common,
		DATA_DIR: dataDir,
		TRANSPORTER: nats.url,
		CLUSTER_SECRET: randomBytes(32).toString("hex"),
		DATABASE_URL: database.url,
		MONGO_URI: "",
		HEARTBEAT_INTERVAL_SECONDS: "1",
		HEARTBEAT_TIMEOUT_SECONDS: "3",
	};
	const port = await freePort();
	const node = async (services: string, extra: Record<string, string> = {}) => {
		const probePort = await freePort();
		const proc = startMain({
			...env,
			NODE_ID: `${services}-${randomBytes(3).toString("hex")}`,
			SERVICES: services,
			PROBE_PORT: String(probePort),
			...extra,
		});
		await waitForHealthy(`http://127.0.0.1:${probePort}/ready`, 90_000, proc);
		return proc;
	};
	// One at a time: several booting at once on two loaded cores can take longer than any wait.
	const others: RunningProcess[] = [];
	for (const services of ["users", "graph", "venues", "systems"]) others.push(await node(services));
	let posts = await node("posts");
	others.push(await node("gateway", { PORT: String(port) }));
	const api = new CrashClient(`http://127.0.0.1:${port}`);
	await until(api, "/Search/Posts", 200);
	return {
		api,
		kill: () => sigkill(posts),
		restart: async () => {
			posts = await node("posts");
			await until(api, "/Search/Posts", 200);
		},
		stop: async () => {
			await stopGently([posts, ...others]);
			await nats.stop();
			await database.drop();
			fs.rmSync(dataDir, { recursive: true, force: true });
		},
	};
}

export function startCrashTarget(engine: CrashEngine): Promise<CrashTarget> {
	return engine === "cluster" ? cluster() : singleProcess(engine);
}
