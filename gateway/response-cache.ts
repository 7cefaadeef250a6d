import { ServiceBroker } from "moleculer";
import { LRUCache } from "lru-cache";
import { catalogue, Operation } from "../shared/catalogue";
import { Caller, isAdmin } from "../shared/caller";
import { domainGenerations } from "../shared/cache/domain-changes";

/** What the gateway keeps of all answers together, in bytes. */
const maxBytes = 64 * 1024 * 1024;
/** The backstop: no kept answer outlives this, whatever the bus says. */
const ttlMs = 60_000;

interface KeptAnswer {
	/** The UTF-8 bytes sent: encoded once, not at every answer (for a 135 KB page that was half the CPU). */
	json: Buffer;
	/** The generations of the operation's domains when the answer was read. */
	generations: string;
}

interface KnownScope {
	scope: string;
	generations: string;
}

/** What a read started with: its key parts, and the generations it must still match to be kept. */
export interface PendingAnswer {
	op: Operation;
	callerKey: string;
	params: string;
	generations: string;
}

/**
 * Answers of the operations that declare `cacheResponse` (ServiceStack's [CacheResponse]), as the
 * JSON text sent, on this gateway. An answer is shared by the callers of one scope, which the action
 * names in `ctx.meta.responseScope` (e.g. "members": every signed-in user who is not cloaked) and the
 * gateway learns per caller from their own first answer; a caller whose scope it has not learned
 * always goes to the service. Both are kept with the generations of the operation's domains, and
 * are served only while those have not moved: any write in one of them, on any node, is announced
 * before it answers, so an answer kept before a write is never served after it.
 */
export class ResponseCache {
	private readonly answers = new LRUCache<string, KeptAnswer>({ maxSize: maxBytes, sizeCalculation: answer => answer.json.length + 100, ttl: ttlMs });

	private readonly scopes = new LRUCache<string, KnownScope>({ max: 100_000, ttl: ttlMs });

	constructor(private readonly broker: ServiceBroker) {
		// A kept answer skips the operations middleware: only reads whose checks do not depend on the fields (no actors) qualify.
		const unfit = catalogue.filter(op => op.cacheResponse && (!op.reads || op.actors?.length || op.download));
		if (unfit.length) throw new Error(`cacheResponse is for reads without actor fields: ${unfit.map(op => op.name).join(", ")}`);
	}

	/** The kept answer for this caller and these params, or what to remember to keep the one about to be read. */
	lookup(op: Operation, caller: Caller | undefined, params: Record<string, unknown>): { json: Buffer } | PendingAnswer {
		const domains = op.cacheResponse?.domains ?? [];
		const pending: PendingAnswer = { op, callerKey: callerKeyOf(caller), params: canonical(params), generations: domainGenerations(this.broker).of(domains) };
		const known = this.scopes.get(`${op.name}\n${pending.callerKey}`);
		if (known?.generations !== pending.generations) return pending;
		const answer = this.answers.get(answerKey(op, known.scope, pending.params));
		return answer?.generations === pending.generations ? { json: answer.json } : pending;
	}

	/** Keeps an answer read for `pending`, when its action gave it a scope and no write happened meanwhile. */
	keep(pending: PendingAnswer, scope: unknown, json: Buffer): void {
		if (typeof scope !== "string" || !scope) return;
		if (domainGenerations(this.broker).of(pending.op.cacheResponse?.domains ?? []) !== pending.generations) return;
		this.scopes.set(`${pending.op.name}\n${pending.callerKey}`, { scope, generations: pending.generations });
		this.answers.set(answerKey(pending.op, scope, pending.params), { json, generations: pending.generations });
	}
}

function answerKey(op: Operation, scope: string, params: string): string {
	return `${op.name}\n${scope}\n${params}`;
}

/** Who asks, as far as scopes go: a user by id, the administrator's key, or nobody. */
function callerKeyOf(caller: Caller | undefined): string {
	if (caller?.userId) return `user:${caller.userId}:${isAdmin(caller) ? "admin" : ""}`;
	return caller ? "key:admin" : "anonymous";
}

/** The request's fields in one spelling, whatever their order. */
function canonical(params: Record<string, unknown>): string {
	return JSON.stringify(Object.keys(params).sort().map(key => [key, params[key]]));
}
