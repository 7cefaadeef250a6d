import { AddressInfo } from "node:net";
import { Server } from "node:http";
import { Middleware, ServiceBroker } from "moleculer";
import { createPlaza, serviceFactories } from "../../plaza";
import { defaultConfig, PlazaConfig } from "../../shared/config";
import { testDatabase, testPoolSize } from "./postgres";
import { testMongoDatabase } from "./mongo";
import { mongoRecords, sqlRecords, StoredRecords } from "./stored-records";
import { SqlDatabase } from "../../shared/persistence/sql/database";

export const ADMIN_KEY = "plaza-tests-admin-key-0123456789abcdef";

/** A reply; `body` is the JSON text parsed, typed as the caller expects it (undefined when not JSON). */
export interface Reply<T = WireRecord> {
	status: number;
	headers: Headers;
	text: string;
	body: T;
}

/** A record as it comes over the wire. */
export type WireRecord = Record<string, unknown> & { Id: string };

/** The body of every failure. */
export interface ErrorBody {
	ResponseStatus: {
		ErrorCode: string;
		Message: string;
		StackTrace?: string;
		Errors: Array<{ ErrorCode: string; FieldName: string; Message: string }>;
	};
}

export interface TestPlaza {
	broker: ServiceBroker;
	url: string;
	/** Sends a request to the real gateway over HTTP; a body object is sent as JSON. */
	http<T = WireRecord>(
		method: string,
		path: string,
		body?: unknown,
		headers?: Record<string, string>,
	): Promise<Reply<T>>;
	/** The same, as the administrator (Bearer ADMIN_API_KEY). */
	admin<T = WireRecord>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
	/** Registers a user (AutoLogin) and returns their session; fields override generated ones. */
	signUp(fields?: Record<string, unknown>): Promise<Session>;
	/**
	 * What a local service's store holds (by service name: its domain's tables, or collections on MongoDB), to check what
	 * was (not) written.
	 */
	stored(service: string): StoredRecords;
	/** How many records a table of a local service's store holds. */
	count(service: string, table: string): Promise<number>;
	stop(): Promise<void>;
}

/** A signed-in user: their id, session token, and requests sent with the token in X-ss-id. */
export interface Session {
	userId: string;
	userName: string;
	password: string;
	token: string;
	http<T = WireRecord>(
		method: string,
		path: string,
		body?: unknown,
		headers?: Record<string, string>,
	): Promise<Reply<T>>;
}

let signUps = 0;

/** A name SERVICES knows (plaza.ts serviceFactories): a domain, which may run as several Moleculer services. */
export type ServiceName = keyof typeof serviceFactories;

/**
 * The domains a domain calls (the gateway identifies callers with users; users embeds graph's and venues' records…).
 */
const calls: Partial<Record<ServiceName, ServiceName[]>> = {
	gateway: ["users"],
	users: ["graph", "venues"],
	posts: ["users"],
	systems: ["users", "posts"],
};

function withWhatTheyCall(names: string[]): string[] {
	const all = new Set(names);
	for (const name of all) for (const called of calls[name] ?? []) all.add(called);
	return [...all];
}

/**
 * A real broker and the gateway on a free port, on an in-memory store unless told otherwise;
 * PLAZA_TEST_STORE=postgres puts it on a PostgreSQL database of its own, dropped at stop (=mongo: a
 * MongoDB database of its own, on the server MONGO_URI names). Every
 * service runs unless `overrides.services` names the few a suite exercises (with the gateway and
 * the services those call, see `calls`, unless other nodes serve them over a transporter).
 */
export async function startPlaza(
	overrides: Partial<PlazaConfig> = {},
	middlewares: Middleware[] = [],
): Promise<TestPlaza> {
	const database = !overrides.store && process.env.PLAZA_TEST_STORE === "postgres" ? testDatabase() : undefined;
	await database?.create();
	const mongo = !overrides.store && process.env.PLAZA_TEST_STORE === "mongo" ? testMongoDatabase() : undefined;
	const store = database
		? { store: { kind: "postgres" as const, url: database.url, poolSize: testPoolSize } }
		: mongo
			? { store: { kind: "mongo" as const, uri: mongo.uri } }
			: {};
	// On MongoDB every domain of the Plaza shares its database: one client of the test's own reads it.
	const mongoStored = mongo && mongoRecords(mongo.uri);
	// On a transporter the other nodes serve the rest: the list is this process's own, as SERVICES is.
	const services =
		overrides.services && !overrides.transporter
			? withWhatTheyCall([...overrides.services, "gateway"])
			: overrides.services;
	const config = defaultConfig({
		adminApiKey: ADMIN_KEY,
		rateLimitPerMinute: 100_000,
		...store,
		...overrides,
		services,
	});
	const broker = createPlaza(config, middlewares);
	const stop = async () => {
		try {
			await broker.stop();
		} finally {
			await mongoStored?.close();
			await database?.drop();
			await mongo?.drop();
		}
	};
	try {
		await broker.start();
	} catch (err) {
		await stop();
		throw err;
	}
	const server = (broker.getLocalService("gateway") as unknown as { server: Server }).server;
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	const http = async <T>(
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
	): Promise<Reply<T>> => {
		const init: RequestInit = { method, headers: { ...headers } };
		if (typeof body === "string") init.body = body;
		else if (body !== undefined) {
			init.body = JSON.stringify(body);
			(init.headers as Record<string, string>)["Content-Type"] = "application/json";
		}
		const res = await fetch(url + path, init);
		const text = await res.text();
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = undefined;
		}
		return { status: res.status, headers: res.headers, text, body: parsed as T };
	};

	const signUp = async (fields: Record<string, unknown> = {}): Promise<Session> => {
		signUps += 1;
		const registration = {
			UserName: `user${signUps}_${Date.now()}`,
			Password: "correct horse battery",
			FirstName: `First${signUps}`,
			LastName: "Member",
			AutoLogin: true,
			...fields,
		};
		let reply = await http<{ UserId: string; SessionId: string; UserName: string }>("POST", "/register", registration);
		// A 503 did nothing and says when to come back (a loaded machine's hashes): as a client would, come back, a few
		// times.
		for (let retry = 0; reply.status === 503 && retry < 5; retry++) {
			await new Promise(resolve => setTimeout(resolve, 1000 * Number(reply.headers.get("Retry-After") ?? 1)));
			reply = await http<{ UserId: string; SessionId: string; UserName: string }>("POST", "/register", registration);
		}
		if (reply.status !== 200) throw new Error(`Registration failed: ${reply.status} ${reply.text}`);
		const token = reply.body.SessionId;
		return {
			userId: reply.body.UserId,
			userName: reply.body.UserName,
			password: String(registration.Password),
			token,
			http: (method, path, body, headers = {}) => http(method, path, body, { "X-ss-id": token, ...headers }),
		};
	};

	return {
		broker,
		url,
		http,
		signUp,
		admin: <T>(method: string, path: string, body?: unknown) =>
			http<T>(method, path, body, { Authorization: `Bearer ${ADMIN_KEY}` }),
		stored: service => mongoStored ?? sqlRecords(databaseOf(broker, service)),
		count: (service, table) => (mongoStored ?? sqlRecords(databaseOf(broker, service))).count(table),
		stop,
	};
}

function databaseOf(broker: ServiceBroker, name: string): SqlDatabase {
	const service = broker.getLocalService(name) as unknown as { db?: SqlDatabase } | undefined;
	if (!service?.db) throw new Error(`No local service ${name} keeps a database`);
	return service.db;
}

/** What a suite starts: only the services it exercises (all when unset), its configuration, and who signs up. */
export interface SuitePlazaOptions {
	services?: ServiceName[];
	config?: Partial<PlazaConfig>;
	middlewares?: Middleware[];
	/** The users to sign up once Plaza is up, in this order; each one's fields override the generated ones. */
	users?: Array<Record<string, unknown>>;
}

/**
 * Plaza for the tests of one describe: started (and its users signed up) before them, stopped after.
 * What it returns stands for what is not started yet, so a suite destructures it where it declares
 * it, `const { plaza, users: [ann, bob] } = plazaForSuite({ services: ["users", "graph"], users: [{}, {}] })`,
 * and its tests use plaza, ann and bob as they are.
 */
export function plazaForSuite(options: SuitePlazaOptions = {}): { plaza: TestPlaza; users: Session[] } {
	const started: { plaza?: TestPlaza; users: Session[] } = { users: [] };
	beforeAll(async () => {
		const overrides = options.services ? { ...options.config, services: options.services } : options.config;
		started.plaza = await startPlaza(overrides, options.middlewares);
		started.users = await signUpAll(started.plaza, options.users ?? []);
	});
	afterAll(() => started.plaza?.stop());
	return {
		plaza: standIn(() => started.plaza, "the suite's Plaza"),
		users: (options.users ?? []).map((_, i) => standIn(() => started.users[i], `the suite's user ${i + 1}`)),
	};
}

/**
 * Signs users up a few at a time, in order: a burst of sign-ups on a loaded machine queues on the
 * password hashes past the request timeout, and no suite needs them at the same instant.
 */
export async function signUpAll(
	plaza: TestPlaza,
	users: Array<Record<string, unknown>>,
	atOnce = 5,
): Promise<Session[]> {
	const sessions: Session[] = [];
	for (let i = 0; i < users.length; i += atOnce)
		sessions.push(...(await Promise.all(users.slice(i, i + atOnce).map(fields => plaza.signUp(fields)))));
	return sessions;
}

/** An object standing for one made later (in a beforeAll): each property is read from it when used. */
function standIn<T extends object>(target: () => T | undefined, what: string): T {
	return new Proxy({} as T, {
		get(_, key) {
			const real = target();
			if (!real) throw new Error(`${what} is used before its beforeAll made it (or after it failed)`);
			const value: unknown = Reflect.get(real, key);
			return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(real) : value;
		},
	});
}
