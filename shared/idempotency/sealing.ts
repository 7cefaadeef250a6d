import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

/** What a (scope, Idempotency-Key) pair is known by in the store, and sealed with. */
export interface KeySecrets {
	/** The row's name: neither the key nor the caller can be read back from it. */
	keyId: string;
	/** The request's fingerprint: tells a retry of the same request from another one. */
	fingerprint: string;
	/** Seals the answer (which may hold a session id). */
	sealKey: Buffer;
}

/**
 * Everything is derived from the server's secret and the client's key: one who reads the store has
 * neither, so can neither open answers nor test guessed request fields (passwords) against fingerprints.
 */
export function keySecrets(serverSecret: Buffer, scope: string, key: string, request: string): KeySecrets {
	const base = createHmac("sha256", serverSecret).update(`plaza idempotency\0${scope}\0${key}`).digest();
	const derive = (purpose: string) => createHmac("sha256", base).update(purpose);
	return {
		keyId: derive("id").digest("hex"),
		fingerprint: derive(`fingerprint\0${request}`).digest("base64"),
		sealKey: derive("seal").digest(),
	};
}

/** JSON with keys in order, so that the same request in another field order has the same fingerprint. */
export function stableJson(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)
			? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
			: v,
	);
}

/** AES-256-GCM; Dates and Buffers kept as such. */
export function seal(sealKey: Buffer, value: unknown): string {
	const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
		const raw = this[key];
		if (raw instanceof Date) return { $date: raw.getTime() };
		if (Buffer.isBuffer(raw)) return { $bytes: raw.toString("base64") };
		return v;
	});
	const iv = randomBytes(12);
	const cipher = createCipheriv("aes-256-gcm", sealKey, iv);
	const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
	return [iv, cipher.getAuthTag(), sealed].map(b => b.toString("base64")).join(".");
}

export function open(sealKey: Buffer, answer: string): unknown {
	const [iv, tag, sealed] = answer.split(".").map(part => Buffer.from(part, "base64"));
	const decipher = createDecipheriv("aes-256-gcm", sealKey, iv);
	decipher.setAuthTag(tag);
	const text = Buffer.concat([decipher.update(sealed), decipher.final()]).toString("utf8");
	return JSON.parse(text, (_key, value: unknown) => {
		const v = value as { $date?: unknown; $bytes?: unknown } | null;
		if (v && typeof v === "object" && typeof v.$date === "number") return new Date(v.$date);
		if (v && typeof v === "object" && typeof v.$bytes === "string") return Buffer.from(v.$bytes, "base64");
		return value;
	});
}
