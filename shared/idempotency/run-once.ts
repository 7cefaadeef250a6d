import { randomUUID } from "node:crypto";
import { Context, Service } from "moleculer";
import { Operation } from "../catalogue";
import { callerOf, CallerMeta, isAdmin, SessionMeta, SessionDirective } from "../caller";
import { FieldError, PlazaError } from "../errors";
import { WithRepository } from "../persistence/repository.mixin";
import { IdempotencyKeys } from "./keys";
import { idempotencySettingsOf } from "./settings";
import { keySecrets, open, seal, stableJson } from "./sealing";
import { underKey } from "./writes";

/** What the gateway passes to the node that runs a write: the client's Idempotency-Key, for the root call only. */
export interface IdempotencyMeta {
	idempotencyKey?: string;
}

/** The first request's outcome as kept: its record and session directive, or the client error it ended with. */
interface Outcome {
	result?: unknown;
	session?: SessionDirective;
	error?: { status: number; type: string; message: string; errors: FieldError[] };
}

/**
 * Runs a write once per (caller, Idempotency-Key) (draft-ietf-httpapi-idempotency-key-header): the first request
 * claims the key in its domain's database, runs and keeps its outcome (record or client error); a retry gets it again,
 * a different request 422, one while the first runs 409. The write's own transaction marks the claim committed (see
 * keyedWrites): a lapsed claim runs again only if nothing committed (if it did, a dead node's answer is lost).
 */
export async function runOnce(ctx: Context, op: Operation, run: () => Promise<unknown>): Promise<unknown> {
	const meta = ctx.meta as IdempotencyMeta & SessionMeta & CallerMeta;
	const key = meta.idempotencyKey;
	// The key is this call's alone: the calls it makes (e.g. sessions.open) must not claim it again.
	delete meta.idempotencyKey;
	if (key === undefined || op.reads) return run();
	const keys = keysOf(ctx, op);
	const { secret, leaseMs, keepMs } = idempotencySettingsOf(ctx.broker);
	const request = `${op.name}\0${stableJson(ctx.params)}`;
	const { keyId, fingerprint, sealKey } = keySecrets(secret, scopeOf(ctx, request), key, request);
	const token = randomUUID();
	const now = Date.now();
	const claim = await keys.claim(keyId, fingerprint, token, now, now + leaseMs);
	if (claim.state !== "claimed" && claim.fingerprint !== fingerprint) {
		throw new PlazaError(
			422,
			"IdempotencyKeyReused",
			"This Idempotency-Key was used for a different request; use a new key for a new request",
		);
	}
	if (claim.state === "running") {
		const error = new PlazaError(
			409,
			"IdempotencyKeyInUse",
			"A request with this Idempotency-Key is still running; retry later with the same key",
		);
		(error.data as { retryAfter?: number }).retryAfter = 1;
		throw error;
	}
	if (claim.state === "lost") throw answerLost(keys);
	if (claim.state === "done") return replay(meta, open(sealKey, claim.answer) as Outcome);
	const write = { db: keys.db, keyId, token, keepMs, marked: false, active: true };
	let outcome: Outcome;
	try {
		if (!keys.db) await keys.markCommitted(keyId, token, Date.now() + keepMs);
		outcome = { result: await underKey(write, run), session: meta.session };
	} catch (err) {
		write.active = false;
		const known = clientError(err);
		if (!known) {
			await keys.giveUp(keyId, token).catch(() => undefined);
			throw err;
		}
		outcome = { error: known };
	}
	write.active = false;
	await keys.answer(keyId, token, seal(sealKey, outcome), Date.now() + keepMs);
	return replay(meta, outcome);
}

/** The keys of the domain that runs the write: every service with a catalogue write has a repository. */
function keysOf(ctx: Context, op: Operation): IdempotencyKeys {
	const keys = (ctx.service as (Service & WithRepository<unknown>) | null)?.idempotencyKeys;
	if (!keys)
		throw new Error(`${op.action} runs writes but its service keeps no idempotency keys (it has no repositoryMixin)`);
	return keys;
}

/**
 * Who the key belongs to: the signed-in user, the administrator, else the client's address and the
 * whole request. A caller who is not signed in shares an address with others (NAT), and their
 * requests carry passwords: with the request in the scope, another request under the same key is a
 * new write (under the sign-in limits), never a 422 that would say whether a guessed password matched.
 */
function scopeOf(ctx: Context, request: string): string {
	const caller = callerOf(ctx);
	if (caller?.userId) return `user:${caller.userId}`;
	if (isAdmin(caller)) return "admin";
	return `anonymous:${(ctx.meta as SessionMeta).clientIp ?? "unknown"}\0${request}`;
}

function answerLost(keys: IdempotencyKeys): PlazaError {
	const done = keys.db ? "was carried out" : "may have been carried out";
	return new PlazaError(
		409,
		"IdempotencyAnswerLost",
		`The request with this Idempotency-Key ${done}, but its node stopped before its answer was kept: read to see what it made, and do not send it again under a new key`,
	);
}

/** The outcome as the first request had it: its record, or its error thrown again. */
function replay(meta: SessionMeta, outcome: Outcome): unknown {
	if (outcome.error)
		throw new PlazaError(outcome.error.status, outcome.error.type, outcome.error.message, outcome.error.errors);
	if (outcome.session) meta.session = outcome.session;
	return outcome.result;
}

/** A refusal that a retry of the same request would meet again (a 4xx of Plaza's), kept as the answer. */
function clientError(err: unknown): Outcome["error"] | undefined {
	const e = err as {
		name?: string;
		code?: unknown;
		type?: unknown;
		message?: string;
		data?: { errors?: FieldError[] };
	};
	if (
		e?.name !== "PlazaError" ||
		typeof e.code !== "number" ||
		typeof e.type !== "string" ||
		e.code >= 500 ||
		e.code === 429
	)
		return undefined;
	return { status: e.code, type: e.type, message: e.message ?? e.type, errors: e.data?.errors ?? [] };
}
