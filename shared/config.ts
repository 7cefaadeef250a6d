import path from "node:path";

/** Where a service keeps its records: SQLite files under DATA_DIR (or in memory), PostgreSQL, or MongoDB. */
export type StoreConfig =
	| { kind: "memory" }
	| { kind: "sqlite"; dir: string }
	| { kind: "mongo"; uri: string }
	| { kind: "postgres"; url: string };

/** Everything a Plaza process can be told, read once from the environment (PRODUCT.md §5). */
export interface PlazaConfig {
	port: number;
	store: StoreConfig;
	adminApiKey?: string;
	/** nats://… joins the other processes; undefined runs everything in this process. */
	transporter?: string;
	/** Services this process runs (the gateway included); undefined means all. */
	services?: string[];
	/** Development mode shows stack traces in error bodies. */
	development: boolean;
	/** Largest request body the gateway reads, in bytes. */
	maxBodyBytes: number;
	logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | false;
	auth: AuthConfig;
	/** How long an invitation (UserReservation) stays open. */
	reservationTtlSeconds: number;
	/** Requests one caller (session, credentials or address) may make per minute. */
	rateLimitPerMinute: number;
	/** Take the client address from X-Forwarded-For (only behind a proxy that sets it). */
	trustProxy: boolean;
	/** Structured JSON log lines (one object per line), or short human-readable ones. */
	logFormat: "json" | "short";
	cluster: ClusterConfig;
}

/** How the processes of a distributed Plaza find, trust and watch one another. */
export interface ClusterConfig {
	/** This process's name among the nodes; Moleculer makes one from the host name and pid when unset. */
	nodeId?: string;
	/** A call not answered in this time fails (503). */
	requestTimeoutMs: number;
	/** Reads (never writes) are tried again this many times on another node when a node fails. */
	readRetries: number;
	/** How often nodes say they are alive, and after how long without a word one is taken for dead. */
	heartbeatIntervalSeconds: number;
	heartbeatTimeoutSeconds: number;
	/** Calls one action runs at once, and how many more may wait, before 503 (a slow service cannot starve the rest). */
	bulkheadConcurrency: number;
	bulkheadQueue: number;
	/** Port of the probe server: /live, /ready and /metrics for this process; unset = none. */
	probePort?: number;
	/** Spans of each call, printed by Moleculer's console exporter. */
	tracing: boolean;
}

export interface AuthConfig {
	/** Idle time after which a session ends (sliding), and the longer one of RememberMe sessions. */
	sessionTtlSeconds: number;
	rememberMeTtlSeconds: number;
	/** Failed sign-ins allowed per account, and per client address, within the window. */
	maxFailuresPerAccount: number;
	maxFailuresPerAddress: number;
	failureWindowSeconds: number;
	/** HTTP Digest (RFC 2617): opt-in, since it keeps a password-equivalent hash per user. */
	digest: boolean;
	/** Signs Digest nonces; set it to the same value on every gateway. */
	digestSecret?: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlazaConfig {
	return {
		port: integer(env.PORT, 3000, "PORT"),
		store: storeFrom(env),
		adminApiKey: env.ADMIN_API_KEY || undefined,
		transporter: env.TRANSPORTER || undefined,
		services: env.SERVICES ? env.SERVICES.split(",").map(s => s.trim()).filter(Boolean) : undefined,
		development: env.NODE_ENV === "development",
		maxBodyBytes: integer(env.MAX_BODY_BYTES, 1024 * 1024, "MAX_BODY_BYTES"),
		logLevel: logLevel(env.LOG_LEVEL),
		auth: {
			sessionTtlSeconds: integer(env.SESSION_TTL_SECONDS, 24 * 3600, "SESSION_TTL_SECONDS"),
			rememberMeTtlSeconds: integer(env.REMEMBER_ME_TTL_SECONDS, 30 * 24 * 3600, "REMEMBER_ME_TTL_SECONDS"),
			maxFailuresPerAccount: integer(env.SIGNIN_MAX_FAILURES, 5, "SIGNIN_MAX_FAILURES"),
			maxFailuresPerAddress: integer(env.SIGNIN_MAX_FAILURES_PER_ADDRESS, 20, "SIGNIN_MAX_FAILURES_PER_ADDRESS"),
			failureWindowSeconds: integer(env.SIGNIN_FAILURE_WINDOW_SECONDS, 15 * 60, "SIGNIN_FAILURE_WINDOW_SECONDS"),
			digest: env.DIGEST_AUTH === "true",
			digestSecret: env.DIGEST_SECRET || undefined,
		},
		reservationTtlSeconds: integer(env.RESERVATION_TTL_SECONDS, 14 * 24 * 3600, "RESERVATION_TTL_SECONDS"),
		rateLimitPerMinute: integer(env.RATE_LIMIT_PER_MINUTE, 1200, "RATE_LIMIT_PER_MINUTE"),
		trustProxy: env.TRUST_PROXY === "true",
		logFormat: env.LOG_FORMAT === "json" ? "json" : "short",
		cluster: {
			nodeId: env.NODE_ID || undefined,
			requestTimeoutMs: integer(env.REQUEST_TIMEOUT_MS, 10_000, "REQUEST_TIMEOUT_MS"),
			readRetries: integer(env.READ_RETRIES, 2, "READ_RETRIES"),
			heartbeatIntervalSeconds: integer(env.HEARTBEAT_INTERVAL_SECONDS, 2, "HEARTBEAT_INTERVAL_SECONDS"),
			heartbeatTimeoutSeconds: integer(env.HEARTBEAT_TIMEOUT_SECONDS, 6, "HEARTBEAT_TIMEOUT_SECONDS"),
			bulkheadConcurrency: integer(env.BULKHEAD_CONCURRENCY, 100, "BULKHEAD_CONCURRENCY"),
			bulkheadQueue: integer(env.BULKHEAD_QUEUE, 1000, "BULKHEAD_QUEUE"),
			probePort: env.PROBE_PORT ? integer(env.PROBE_PORT, 0, "PROBE_PORT") : undefined,
			tracing: env.TRACING === "true",
		},
	};
}

/** The configuration of a process that reads no environment: tests and benchmarks start from it. */
export function defaultConfig(overrides: Partial<PlazaConfig> = {}): PlazaConfig {
	return { ...loadConfig({ DATA_DIR: ":memory:", PORT: "0" }), logLevel: false, ...overrides };
}

function storeFrom(env: NodeJS.ProcessEnv): StoreConfig {
	// MONGO_URI names Plaza's store on purpose; hosting platforms set DATABASE_URL for any attached PostgreSQL.
	if (env.MONGO_URI) return { kind: "mongo", uri: env.MONGO_URI };
	if (env.DATABASE_URL) return { kind: "postgres", url: env.DATABASE_URL };
	if (env.DATA_DIR === ":memory:") return { kind: "memory" };
	return { kind: "sqlite", dir: path.resolve(env.DATA_DIR || "./data") };
}

function integer(value: string | undefined, fallback: number, name: string): number {
	if (value === undefined || value === "") return fallback;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
	return n;
}

function logLevel(value: string | undefined): PlazaConfig["logLevel"] {
	const levels = ["fatal", "error", "warn", "info", "debug", "trace"] as const;
	if (value === "off" || value === "false") return false;
	return levels.find(l => l === value) ?? "info";
}
