import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { Context } from "moleculer";
import { Operation } from "./catalogue";
import { callerOf, CallerMeta, isAdmin, SessionMeta, SessionDirective } from "./caller";
import { FieldError, PlazaError } from "./errors";

/** What the gateway passes to the node that runs a write: the client's Idempotency-Key, for the root call only. */
export interface IdempotencyMeta {
	idempotencyKey?: string;
}

/** What the store says of a key asked for: claimed for this request, or held by a first one (running, or answered). */
export type KeyClaim = { state: "claimed" } | { state: "running"; fingerprint: string } | { state: "done"; fingerprint: string; answer: string };

/** The first request's outcome as kept: its record and session directive, or the client error it ended with. */
interface Outcome {
	result?: unknown;
	session?: SessionDirective;
	error?: { status: number; type: string; message: string; errors: FieldError[] };
}

/**
 * Runs a write once per (caller, Idempotency-Key) (draft-ietf-httpapi-idempotency-key-header): the
 * first request claims the key, runs, and keeps its outcome (its record, or the client error it
 * ended with); a retry with the same request gets that outcome again, one with a different request
 * 422, one while the first still runs 409. A server failure gives the key up, so a retry runs anew.
 * Recorded here, on the node that runs the write, so an outcome still counts when the gateway gave up.
 * The store never holds the key: rows are named by a hash of caller and key, and the outcome (which
 * may hold a session id) and the request's fingerprint (which may hold a password) are sealed with
 * a secret derived from the key, so only a client that knows the key can read them.
 */
export async function runOnce(ctx: Context, op: Operation, run: () => Promise<unknown>): Promise<unknown> {
	const meta = ctx.meta as IdempotencyMeta & SessionMeta & CallerMeta;
	const key = meta.idempotencyKey;
	// The key is this call's alone: the calls it makes (e.g. sessions.open) must not claim it again.
	delete meta.idempotencyKey;
	if (key === undefined || op.reads) return run();
	const secret = createHmac("sha256", key)
		.update(`plaza idempotency\0${scopeOf(ctx)}`)
		.digest();
	const keyId = createHash("sha256").update(secret).digest("hex");
	const fingerprint = createHmac("sha256", secret)
		.update(`${op.name}\0${stableJson(ctx.params)}`)
		.digest("base64");
	const claim = await ctx.call<KeyClaim, { keyId: string; fingerprint: string }>("idempotency.claim", { keyId, fingerprint });
	if (claim.state !== "claimed" && claim.fingerprint !== fingerprint) {
		throw new PlazaError(422, "IdempotencyKeyReused", "This Idempotency-Key was used for a different request; use a new key for a new request");
	}
	if (claim.state === "running") {
		const error = new PlazaError(409, "IdempotencyKeyInUse", "A request with this Idempotency-Key is still running; retry later with the same key");
		(error.data as { retryAfter?: number }).retryAfter = 1;
		throw error;
	}
	if (claim.state === "done") return replay(meta, open(secret, claim.answer));
	let outcome: Outcome;
	try {
		outcome = { result: await run(), session: meta.session };
	} catch (err) {
		const known = clientError(err);
		if (!known) {
			await afterwards(ctx, "idempotency.release", { keyId }).catch(() => undefined);
			throw err;
		}
		outcome = { error: known };
	}
	await afterwards(ctx, "idempotency.answer", { keyId, answer: seal(secret, outcome) });
	return replay(meta, outcome);
}

/**
 * A call made once the write is over, with a time of its own: ctx.call would skip it when the
 * request's time is spent, yet that is when the outcome matters most (the gateway said 504).
 */
function afterwards(ctx: Context, action: string, params: Record<string, unknown>): Promise<unknown> {
	return ctx.broker.call(action, params, { caller: ctx.service?.fullName, requestID: ctx.requestID ?? undefined });
}

/** Who the key belongs to: the signed-in user, the administrator, else the client's address. */
function scopeOf(ctx: Context): string {
	const caller = callerOf(ctx);
	if (caller?.userId) return `user:${caller.userId}`;
	if (isAdmin(caller)) return "admin";
	return `address:${(ctx.meta as SessionMeta).clientIp ?? "unknown"}`;
}

/** The outcome as the first request had it: its record, or its error thrown again. */
function replay(meta: SessionMeta, outcome: Outcome): unknown {
	if (outcome.error) throw new PlazaError(outcome.error.status, outcome.error.type, outcome.error.message, outcome.error.errors);
	if (outcome.session) meta.session = outcome.session;
	return outcome.result;
}

/** A refusal that a retry of the same request would meet again (a 4xx of Plaza's), kept as the answer. */
function clientError(err: unknown): Outcome["error"] | undefined {
	const e = err as { name?: string; code?: unknown; type?: unknown; message?: string; data?: { errors?: FieldError[] } };
	if (e?.name !== "PlazaError" || typeof e.code !== "number" || typeof e.type !== "string" || e.code >= 500 || e.code === 429) return undefined;
	return { status: e.code, type: e.type, message: e.message ?? e.type, errors: e.data?.errors ?? [] };
}

/** JSON with keys in order, so that the same request in another field order has the same fingerprint. */
function stableJson(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
	);
}

/** AES-256-GCM under the key's secret; Dates and Buffers kept as such. */
function seal(secret: Buffer, outcome: Outcome): string {
	const text = JSON.stringify(outcome, function (this: Record<string, unknown>, key: string, value: unknown) {
		const raw = this[key];
		if (raw instanceof Date) return { $date: raw.getTime() };
		if (Buffer.isBuffer(raw)) return { $bytes: raw.toString("base64") };
		return value;
	});
	const iv = randomBytes(12);
	const cipher = createCipheriv("aes-256-gcm", secret, iv);
	const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
	return [iv, cipher.getAuthTag(), sealed].map(b => b.toString("base64")).join(".");
}

function open(secret: Buffer, answer: string): Outcome {
	const [iv, tag, sealed] = answer.split(".").map(part => Buffer.from(part, "base64"));
	const decipher = createDecipheriv("aes-256-gcm", secret, iv);
	decipher.setAuthTag(tag);
	const text = Buffer.concat([decipher.update(sealed), decipher.final()]).toString("utf8");
	return JSON.parse(text, (_key, value: unknown) => {
		const v = value as { $date?: unknown; $bytes?: unknown } | null;
		if (v && typeof v === "object" && typeof v.$date === "number") return new Date(v.$date);
		if (v && typeof v === "object" && typeof v.$bytes === "string") return Buffer.from(v.$bytes, "base64");
		return value;
	}) as Outcome;
}
