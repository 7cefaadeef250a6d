import { ServiceBroker } from "moleculer";
import { LRUCache } from "lru-cache";
import { catalogue, Operation } from "../shared/catalogue";
import { Caller, CALLER_SCOPE, isAdmin } from "../shared/caller";
import { domainGenerations } from "../shared/cache/domain-changes";
import { onInvalidation } from "../shared/cache/node-caches";
import { audienceCache } from "../shared/audience";

/** What the gateway keeps of all answers together, in bytes. */
const maxBytes = 64 * 1024 * 1024;
/** The backstop: no kept answer outlives this, whatever the bus says. */
const ttlMs = 60_000;

interface KeptAnswer {
	/** The UTF-8 bytes sent: encoded once, not at every answer, since encoding a large page is costly. */
	json: Buffer;
	/** The generations of the operation's domains when the answer was read. */
	generations: string;
	/** The records it was made of ("cache\nkey"): invalidating one drops it. */
	records: string[];
}

interface KnownScope {
	scope: string;
	generations: string;
}

/** What a read started with: its key parts, and the generations it must still match to be kept. */
export interface PendingAnswer {
	op: Operation;
	userId?: string;
	callerKey: string;
	params: string;
	generations: string;
	/** How many invalidations this node had heard of when the read started. */
	heard: number;
}

/**
 * This gateway's kept answers of `cacheResponse` operations (ServiceStack's [CacheResponse]), as the JSON sent. One
 * is shared by the callers of the scope the action names (`ctx.meta.responseScope`, learned per caller from their
 * first answer), served only while its domains' generations have not moved (writes announce before they answer) and
 * none of its `ctx.meta.responseRecords` was invalidated, never past `responseExpiresAt`. CALLER_SCOPE keeps it for
 * that caller alone: the only scope an operation with actor fields may give, as its actor check was for that caller.
 */
export class ResponseCache {
	private readonly answers = new LRUCache<string, KeptAnswer>({
		maxSize: maxBytes,
		sizeCalculation: answer => answer.json.length + 100,
		ttl: ttlMs,
		dispose: (answer, key) => answer.records.forEach(record => this.forget(record, key)),
	});

	/** The kept answers made of each record ("cache\nkey"). */
	private readonly answersOf = new Map<string, Set<string>>();

	/** When each record was last invalidated (by the count of invalidations heard), for reads in flight meanwhile. */
	private readonly invalidatedAt = new LRUCache<string, number>({ max: 100_000, ttl: ttlMs });

	private heard = 0;

	private readonly scopes = new LRUCache<string, KnownScope>({ max: 100_000, ttl: ttlMs });

	constructor(private readonly broker: ServiceBroker) {
		// A kept answer skips the operations middleware: its checks must have passed for the same caller and fields (see
		// keep).
		const unfit = catalogue.filter(op => op.cacheResponse && (!op.reads || op.download));
		if (unfit.length)
			throw new Error(`cacheResponse is for reads that are not downloads: ${unfit.map(op => op.name).join(", ")}`);
		onInvalidation(broker, (cache, keys) => this.drop(cache, keys));
	}

	/** The kept answer for this caller and these params, or what to remember to keep the one about to be read. */
	lookup(op: Operation, caller: Caller | undefined, params: Record<string, unknown>): { json: Buffer } | PendingAnswer {
		const domains = op.cacheResponse?.domains ?? [];
		const pending: PendingAnswer = {
			op,
			userId: caller?.userId,
			callerKey: callerKeyOf(caller),
			params: canonical(params),
			generations: domainGenerations(this.broker).of(domains),
			heard: this.heard,
		};
		const known = this.scopes.get(`${op.name}\n${pending.callerKey}`);
		if (known?.generations !== pending.generations) return pending;
		const answer = this.answers.get(answerKey(op, known.scope, pending.params));
		return answer?.generations === pending.generations ? { json: answer.json } : pending;
	}

	/**
	 * Keeps an answer read for `pending`, when its action gave it a scope and nothing it depends on
	 * changed meanwhile: its domains' generations, and the records it names (cache → keys).
	 */
	keep(
		pending: PendingAnswer,
		given: string,
		json: Buffer,
		records: Record<string, string[]> = {},
		expiresAt?: number,
	): void {
		// Whether the caller may pass these actor fields was checked for this caller alone.
		if (pending.op.actors?.length && given !== CALLER_SCOPE) return;
		const ttl = expiresAt === undefined ? ttlMs : Math.min(ttlMs, expiresAt - Date.now());
		if (ttl <= 0) return;
		if (domainGenerations(this.broker).of(pending.op.cacheResponse?.domains ?? []) !== pending.generations) return;
		const made = Object.entries(records).flatMap(([cache, keys]) => keys.map(key => `${cache}\n${key}`));
		// The caller's audience (whom they hide) decided the scope too: one changed meanwhile keeps nothing.
		const decided = pending.userId ? [...made, `${audienceCache.name}\n${pending.userId}`] : made;
		if (decided.some(record => (this.invalidatedAt.get(record) ?? 0) > pending.heard)) return;
		const scope = given === CALLER_SCOPE ? `${CALLER_SCOPE}:${pending.callerKey}` : given;
		this.scopes.set(`${pending.op.name}\n${pending.callerKey}`, { scope, generations: pending.generations });
		const key = answerKey(pending.op, scope, pending.params);
		this.answers.set(key, { json, generations: pending.generations, records: made }, { ttl });
		for (const record of made) {
			let answers = this.answersOf.get(record);
			if (!answers) this.answersOf.set(record, (answers = new Set()));
			answers.add(key);
		}
	}

	private forgetScopesOf(userId: string): void {
		for (const op of keptOperations)
			for (const admin of [false, true]) this.scopes.delete(`${op}\n${userCallerKey(userId, admin)}`);
	}

	private forget(record: string, answer: string): void {
		const answers = this.answersOf.get(record);
		answers?.delete(answer);
		if (answers?.size === 0) this.answersOf.delete(record);
	}

	/**
	 * A write invalidated these records: the answers made of them go, and reads in flight will not keep theirs. A user's
	 * audience (a block, a follow) also decides which answers they share: the scopes learned for them go.
	 */
	private drop(cache: string, keys: readonly string[]): void {
		this.heard += 1;
		if (cache === audienceCache.name) for (const userId of keys) this.forgetScopesOf(userId);
		for (const key of keys) {
			const record = `${cache}\n${key}`;
			this.invalidatedAt.set(record, this.heard);
			const answers = this.answersOf.get(record);
			this.answersOf.delete(record);
			answers?.forEach(answer => this.answers.delete(answer));
		}
	}
}

function answerKey(op: Operation, scope: string, params: string): string {
	return `${op.name}\n${scope}\n${params}`;
}

/** Who asks, as far as scopes go: a user by id, the administrator's key, or nobody. */
function callerKeyOf(caller: Caller | undefined): string {
	if (caller?.userId) return userCallerKey(caller.userId, isAdmin(caller));
	return caller ? "key:admin" : "anonymous";
}

const userCallerKey = (userId: string, admin: boolean) => `user:${userId}:${admin ? "admin" : ""}`;

/** The operations whose answers are kept: the scopes learned per caller are theirs. */
const keptOperations = catalogue.filter(op => op.cacheResponse).map(op => op.name);

/** The request's fields in one spelling, whatever their order. */
function canonical(params: Record<string, unknown>): string {
	return JSON.stringify(
		Object.keys(params)
			.sort()
			.map(key => [key, params[key]]),
	);
}
