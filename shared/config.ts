import path from "node:path";

/** Where a service keeps its records: SQLite files under DATA_DIR (or in memory), PostgreSQL, or MongoDB. */
export type StoreConfig =
	| { kind: "memory" }
	| { kind: "sqlite"; dir: string }
	| { kind: "mongo"; uri: string }
	| { kind: "postgres"; url: string; poolSize?: number };

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
	/** How often account deletions cut off (a crash, a domain out of reach) are taken up again. */
	accountDeletionSweepSeconds: number;
	/** A source (author, network) with more readers than this is not pushed into their timelines: they pull it. */
	timelinePushLimit: number;
	/** Requests one caller (session, credentials or address) may make per minute. */
	rateLimitPerMinute: number;
	/** Server Events streams one caller (user, admin key, else client address) may hold open on a gateway. */
	eventStreamsPerCaller: number;
	/** How long a write's answer is kept for a retry with the same Idempotency-Key. */
	idempotencyKeyTtlSeconds: number;
	/** Where this process keeps files of its own (DATA_DIR); undefined when DATA_DIR is ":memory:". */
	dataDir?: string;
	/** The proxies in front of the gateway whose X-Forwarded-* headers are believed (TRUST_PROXY). */
	trustProxy: TrustProxy;
	/** Origins allowed to call Plaza from a browser (CORS_ORIGINS); empty = no CORS, Plaza's own origin only. */
	corsOrigins: string[];
	/** Structured JSON log lines (one object per line), or short human-readable ones. */
	logFormat: "json" | "short";
	cluster: ClusterConfig;
}

/**
 * Which proxies to believe: the number of hops in front of the gateway (counted from the right of
 * X-Forwarded-For), or their addresses and subnets (proxy-addr's forms, e.g. `10.0.0.0/8`,
 * `loopback`); 0 = none, the socket's peer is the client.
 */
export type TrustProxy = number | string[];

/** How the processes of a distributed Plaza find, trust and watch one another. */
export interface ClusterConfig {
	/**
	 * The secret every process of a distributed deployment shares (CLUSTER_SECRET): it seals what
	 * travels on the bus, so that a process without it can neither read nor forge a call.
	 */
	secret?: string;
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
	/**
	 * Where spans are sent (TRACING_EXPORTER=zipkin, TRACING_ENDPOINT): a Zipkin v2 endpoint, which an OpenTelemetry
	 * collector's zipkin receiver is; unset = nowhere.
	 */
	traceExport?: { kind: "zipkin"; endpoint: string };
}

export interface AuthConfig {
	/** Idle time after which a session ends (sliding), and the longer one of RememberMe sessions. */
	sessionTtlSeconds: number;
	rememberMeTtlSeconds: number;
	/**
	 * Failed sign-ins allowed per account from one client address, and per address across accounts, within the window.
	 */
	maxFailuresPerAccount: number;
	maxFailuresPerAddress: number;
	failureWindowSeconds: number;
	/**
	 * Failed sign-ins allowed per account from all addresses within its own window: once spent, only
	 * addresses trusted for the account (a successful sign-in from there, within trustedAddressSeconds) may try.
	 */
	accountFailureBudget: number;
	accountFailureWindowSeconds: number;
	trustedAddressSeconds: number;
	/** How long a bearer token (JWT) is taken: short, since only its session's end revokes it before then. */
	bearerTokenTtlSeconds: number;
	/** How often a new key starts signing bearer tokens (the old ones verify until their tokens are gone). */
	tokenKeyRotationSeconds: number;
	/** HTTP Digest (RFC 2617): opt-in, since it keeps a password-equivalent hash per user. */
	digest: boolean;
	/** Signs Digest nonces; set it to the same value on every gateway. */
	digestSecret?: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlazaConfig {
	return {
		port: integer(env.PORT, 3000, "PORT"),
		store: storeFrom(env),
		adminApiKey: adminApiKey(env.ADMIN_API_KEY),
		transporter: env.TRANSPORTER || undefined,
		services: env.SERVICES ? list(env.SERVICES) : undefined,
		development: env.NODE_ENV === "development",
		maxBodyBytes: integer(env.MAX_BODY_BYTES, 1024 * 1024, "MAX_BODY_BYTES"),
		logLevel: logLevel(env.LOG_LEVEL),
		auth: {
			sessionTtlSeconds: integer(env.SESSION_TTL_SECONDS, 24 * 3600, "SESSION_TTL_SECONDS"),
			rememberMeTtlSeconds: integer(env.REMEMBER_ME_TTL_SECONDS, 30 * 24 * 3600, "REMEMBER_ME_TTL_SECONDS"),
			maxFailuresPerAccount: integer(env.SIGNIN_MAX_FAILURES, 5, "SIGNIN_MAX_FAILURES"),
			maxFailuresPerAddress: integer(env.SIGNIN_MAX_FAILURES_PER_ADDRESS, 20, "SIGNIN_MAX_FAILURES_PER_ADDRESS"),
			failureWindowSeconds: integer(env.SIGNIN_FAILURE_WINDOW_SECONDS, 15 * 60, "SIGNIN_FAILURE_WINDOW_SECONDS"),
			accountFailureBudget: integer(env.SIGNIN_MAX_FAILURES_PER_ACCOUNT, 50, "SIGNIN_MAX_FAILURES_PER_ACCOUNT"),
			accountFailureWindowSeconds: integer(env.SIGNIN_ACCOUNT_WINDOW_SECONDS, 3600, "SIGNIN_ACCOUNT_WINDOW_SECONDS"),
			trustedAddressSeconds: integer(
				env.SIGNIN_TRUSTED_ADDRESS_SECONDS,
				30 * 24 * 3600,
				"SIGNIN_TRUSTED_ADDRESS_SECONDS",
			),
			bearerTokenTtlSeconds: integer(env.BEARER_TOKEN_TTL_SECONDS, 15 * 60, "BEARER_TOKEN_TTL_SECONDS"),
			tokenKeyRotationSeconds: integer(env.TOKEN_KEY_ROTATION_SECONDS, 30 * 24 * 3600, "TOKEN_KEY_ROTATION_SECONDS"),
			digest: env.DIGEST_AUTH === "true",
			digestSecret: env.DIGEST_SECRET || undefined,
		},
		reservationTtlSeconds: integer(env.RESERVATION_TTL_SECONDS, 14 * 24 * 3600, "RESERVATION_TTL_SECONDS"),
		accountDeletionSweepSeconds: integer(env.ACCOUNT_DELETION_SWEEP_SECONDS, 60, "ACCOUNT_DELETION_SWEEP_SECONDS"),
		timelinePushLimit: integer(env.TIMELINE_PUSH_LIMIT, 2000, "TIMELINE_PUSH_LIMIT"),
		rateLimitPerMinute: integer(env.RATE_LIMIT_PER_MINUTE, 1200, "RATE_LIMIT_PER_MINUTE"),
		eventStreamsPerCaller: integer(env.EVENT_STREAMS_PER_CALLER, 10, "EVENT_STREAMS_PER_CALLER"),
		idempotencyKeyTtlSeconds: integer(env.IDEMPOTENCY_KEY_TTL_SECONDS, 24 * 3600, "IDEMPOTENCY_KEY_TTL_SECONDS"),
		dataDir: env.DATA_DIR === ":memory:" ? undefined : path.resolve(env.DATA_DIR || "./data"),
		trustProxy: trustProxy(env.TRUST_PROXY),
		corsOrigins: list(env.CORS_ORIGINS).map(origin => new URL(origin).origin),
		logFormat: env.LOG_FORMAT === "json" ? "json" : "short",
		cluster: {
			secret: clusterSecret(env.CLUSTER_SECRET, env.TRANSPORTER),
			nodeId: env.NODE_ID || undefined,
			requestTimeoutMs: integer(env.REQUEST_TIMEOUT_MS, 10_000, "REQUEST_TIMEOUT_MS"),
			readRetries: integer(env.READ_RETRIES, 2, "READ_RETRIES"),
			heartbeatIntervalSeconds: integer(env.HEARTBEAT_INTERVAL_SECONDS, 2, "HEARTBEAT_INTERVAL_SECONDS"),
			heartbeatTimeoutSeconds: integer(env.HEARTBEAT_TIMEOUT_SECONDS, 6, "HEARTBEAT_TIMEOUT_SECONDS"),
			bulkheadConcurrency: integer(env.BULKHEAD_CONCURRENCY, 100, "BULKHEAD_CONCURRENCY"),
			bulkheadQueue: integer(env.BULKHEAD_QUEUE, 1000, "BULKHEAD_QUEUE"),
			probePort: env.PROBE_PORT ? integer(env.PROBE_PORT, 0, "PROBE_PORT") : undefined,
			tracing: env.TRACING === "true",
			traceExport: traceExport(env.TRACING_EXPORTER, env.TRACING_ENDPOINT),
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
	if (env.DATABASE_URL)
		return {
			kind: "postgres",
			url: env.DATABASE_URL,
			poolSize: integer(env.DATABASE_POOL_SIZE, 0, "DATABASE_POOL_SIZE") || undefined,
		};
	if (env.DATA_DIR === ":memory:") return { kind: "memory" };
	return { kind: "sqlite", dir: path.resolve(env.DATA_DIR || "./data") };
}

function list(value: string | undefined): string[] {
	return (value ?? "")
		.split(",")
		.map(s => s.trim())
		.filter(Boolean);
}

/** Values shipped in examples and templates: a deployment that kept one would open its door to anyone who read them. */
const placeholders = /^(change[-_ ]?me.*|changeit|secret|password|admin|test|example.*|your[-_ ].*|x+)$/i;
const minimumSecretLength = 32;

/** The administrator's key: unset, or at least 32 characters and not a placeholder (else Plaza refuses to start). */
function adminApiKey(value: string | undefined): string | undefined {
	if (!value) return undefined;
	return strongSecret(value, "ADMIN_API_KEY");
}

/** CLUSTER_SECRET: required as soon as processes meet over a transporter. */
function clusterSecret(value: string | undefined, transporter: string | undefined): string | undefined {
	if (!value) {
		if (transporter)
			throw new Error(
				"CLUSTER_SECRET must be set when TRANSPORTER is (every process of the deployment shares it; e.g. openssl rand -hex 32)",
			);
		return undefined;
	}
	return strongSecret(value, "CLUSTER_SECRET");
}

function strongSecret(value: string, name: string): string {
	if (value.length < minimumSecretLength)
		throw new Error(`${name} must be at least ${minimumSecretLength} characters long (e.g. openssl rand -hex 32)`);
	if (placeholders.test(value))
		throw new Error(`${name} is a placeholder value; set a secret of your own (e.g. openssl rand -hex 32)`);
	return value;
}

/** TRUST_PROXY: a hop count, or the proxies' addresses (comma-separated); "true" is one hop, unset none. */
function trustProxy(value: string | undefined): TrustProxy {
	if (!value || value === "false") return 0;
	if (value === "true") return 1;
	if (/^\d+$/.test(value)) return Number(value);
	return list(value);
}

/**
 * TRACING_EXPORTER: unset or "zipkin" (then TRACING_ENDPOINT is required); anything else is a mistake to report at
 * start.
 */
function traceExport(exporter: string | undefined, endpoint: string | undefined): ClusterConfig["traceExport"] {
	if (!exporter || exporter === "none") return undefined;
	if (exporter !== "zipkin") throw new Error(`TRACING_EXPORTER must be "zipkin" or unset, got "${exporter}"`);
	if (!endpoint || !/^https?:\/\//.test(endpoint))
		throw new Error(
			"TRACING_ENDPOINT must be the collector's URL when TRACING_EXPORTER is set (e.g. http://otel-collector:9411/api/v2/spans)",
		);
	return { kind: "zipkin", endpoint };
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
