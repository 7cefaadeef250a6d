import path from "node:path";

/** Where a service keeps its records. */
export type StoreConfig =
	| { kind: "memory" }
	| { kind: "nedb"; dir: string }
	| { kind: "mongo"; uri: string };

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
	};
}

function storeFrom(env: NodeJS.ProcessEnv): StoreConfig {
	if (env.MONGO_URI) return { kind: "mongo", uri: env.MONGO_URI };
	if (env.DATA_DIR === ":memory:") return { kind: "memory" };
	return { kind: "nedb", dir: path.resolve(env.DATA_DIR || "./data") };
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
