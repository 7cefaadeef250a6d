import fs from "node:fs";
import path from "node:path";
import { hkdfSync, randomBytes } from "node:crypto";
import { ServiceBroker } from "moleculer";
import { PlazaConfig } from "../config";

/** What every node needs to run writes once per Idempotency-Key. */
export interface IdempotencySettings {
	/** The server's secret: key rows are named, fingerprints made and answers sealed under it. */
	secret: Buffer;
	/** How long a claim holds without a committed write before a retry may take it over. */
	leaseMs: number;
	/** How long an answer (or a committed write's claim) is kept. */
	keepMs: number;
}

const secretFile = "idempotency.secret";
const settings = new WeakMap<ServiceBroker, IdempotencySettings>();

/** Keeps the settings of a broker's process (see createPlaza). */
export function keepIdempotencySettings(broker: ServiceBroker, config: PlazaConfig): void {
	settings.set(broker, {
		secret: serverSecret(config),
		leaseMs: Math.max(60_000, 3 * config.cluster.requestTimeoutMs),
		keepMs: config.idempotencyKeyTtlSeconds * 1000,
	});
}

export function idempotencySettingsOf(broker: ServiceBroker): IdempotencySettings {
	const found = settings.get(broker);
	if (!found) throw new Error("Idempotency keys need the process's settings: create the broker with createPlaza");
	return found;
}

/**
 * CLUSTER_SECRET where processes share a bus (every node must name and open the same rows); else a
 * random secret made once and kept in DATA_DIR (mode 0600), so that it survives restarts and never
 * sits in the database it protects; in memory, one per process.
 */
function serverSecret(config: PlazaConfig): Buffer {
	if (config.cluster.secret) return Buffer.from(hkdfSync("sha256", config.cluster.secret, "", "plaza idempotency", 32));
	const dir =
		config.store.kind === "sqlite" ? config.store.dir : config.store.kind === "memory" ? undefined : config.dataDir;
	if (!dir) return randomBytes(32);
	const file = path.join(dir, secretFile);
	fs.mkdirSync(dir, { recursive: true });
	try {
		fs.writeFileSync(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
	}
	const secret = Buffer.from(fs.readFileSync(file, "utf8").trim(), "hex");
	if (secret.length !== 32) throw new Error(`${file} must hold 32 bytes in hex; delete it to have a new one made`);
	return secret;
}
