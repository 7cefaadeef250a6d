import { randomBytes, scrypt, timingSafeEqual, ScryptOptions } from "node:crypto";
import { PlazaError } from "./errors";

/** scrypt's parameters: N (CPU and memory), r (block size), p (parallelism). */
export interface HashCost {
	N: number;
	r: number;
	p: number;
}

/**
 * OWASP's current minimum for scrypt (Password Storage Cheat Sheet): N = 2^17, r = 8, p = 1, i.e. 128 MiB and about
 * half a second per hash.
 */
export const owaspCost: HashCost = { N: 1 << 17, r: 8, p: 1 };

/** For test suites only (PASSWORD_HASH_COST=test): they sign up hundreds of users. Never in production. */
const testCost: HashCost = { N: 1 << 10, r: 8, p: 1 };

/** The largest parameters a stored hash may name: a hash from elsewhere cannot make us allocate gigabytes. */
const largest: HashCost = { N: 1 << 20, r: 16, p: 4 };

const keyLength = 32;

/** The cost new hashes get; read at each hash, so that a test suite can choose it before its first sign-up. */
export function currentCost(): HashCost {
	return process.env.PASSWORD_HASH_COST === "test" ? testCost : owaspCost;
}

/**
 * What scrypt needs in memory for these parameters (OpenSSL: 128·r·(N + p + 2) bytes), with room to spare: Node's
 * default maxmem is 32 MiB.
 */
const memoryFor = (cost: HashCost) => 128 * cost.r * (cost.N + cost.p + 2) + 1024 * 1024;

/**
 * A hash that would wait past `maxWaitMs` at the measured pace is refused up front (503 with Retry-After: certainly not
 * done): a call that times out while its hash queues still makes its account. One that finds a thread free always
 * starts: refusing it would not make it faster, and one slow hash would otherwise refuse the sign-ups after it.
 */
const queue = { maxWaitMs: Infinity, pending: 0, samples: [] as number[], next: 0 };

/** How many recent hashes the pace is the median of. */
const paceSamples = 31;

/**
 * The longest a hash may expect to wait for the threads before it is refused (the users service sets it from
 * REQUEST_TIMEOUT_MS).
 */
export function limitHashWait(ms: number): void {
	queue.maxWaitMs = ms;
	// One hash now (the decoy, needed anyway) measures the pace before a burst can come.
	decoyHash().catch(() => undefined);
}

/** libuv's threads, which run the hashes; until a pace is measured, no more hashes at once than this. */
export const hashThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;

/**
 * The pace in ms per hash: the median, over recent hashes that found a thread free, of their duration divided by how
 * many ran beside them. A median, so that one hash stretched by a stalled event loop does not refuse whole bursts; not
 * the time between completions, which is near zero as threads finish together.
 */
function pace(): number | undefined {
	if (queue.samples.length === 0) return undefined;
	const sorted = [...queue.samples].sort((a, b) => a - b);
	return sorted[sorted.length >> 1];
}

function admitHash(): void {
	if (queue.maxWaitMs === Infinity || queue.pending < hashThreads) return;
	const msPerHash = pace();
	const expectedMs = msPerHash === undefined ? Infinity : (queue.pending + 1) * msPerHash;
	if (expectedMs <= queue.maxWaitMs) return;
	const retryAfter = msPerHash === undefined ? 1 : Math.max(1, Math.ceil((expectedMs - queue.maxWaitMs) / 1000));
	throw refusal(`Too many passwords are being checked at once; nothing was done, retry in ${retryAfter} s`, retryAfter);
}

/** A 503 that says nothing was done, with when to come back (the gateway writes it as Retry-After). */
function refusal(message: string, retryAfter: number): PlazaError {
	const error = new PlazaError(503, "ServiceUnavailable", message);
	(error.data as { retryAfter?: number }).retryAfter = retryAfter;
	return error;
}

/** Notes a hash starting; the function to call when it is done. */
function hashStarted(): () => void {
	const startedAt = Date.now();
	const queued = queue.pending >= hashThreads;
	const sharing = Math.min(++queue.pending, hashThreads);
	return () => {
		queue.pending -= 1;
		// A queued hash's time is the queue's, not its own.
		if (queued) return;
		queue.samples[queue.next] = (Date.now() - startedAt) / sharing;
		queue.next = (queue.next + 1) % paceSamples;
	};
}

function derive(password: string, salt: Buffer, cost: HashCost): Promise<Buffer> {
	const options: ScryptOptions = { ...cost, maxmem: memoryFor(cost) };
	admitHash();
	const hashDone = hashStarted();
	return new Promise<Buffer>((resolve, reject) =>
		scrypt(password.normalize("NFKC"), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
	).finally(hashDone);
}

/** A salted scrypt hash, self-describing: `scrypt$N$r$p$salt$key` (base64). */
export async function hashPassword(password: string, cost: HashCost = currentCost()): Promise<string> {
	const salt = randomBytes(16);
	const key = await derive(password, salt, cost);
	return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/**
 * A new hash for a write that must not outlive its call: past `ms` (no limit when undefined), a 503 that says nothing
 * was done, not a 504 while the write still lands. The hash finishes on its thread and is dropped; its time still
 * sets the pace.
 */
export async function hashPasswordWithin(
	password: string,
	ms: number | undefined,
	cost: HashCost = currentCost(),
): Promise<string> {
	if (ms === undefined) return hashPassword(password, cost);
	if (ms <= 0)
		throw refusal("The call's time was up before its password could be hashed; nothing was done, retry in 1 s", 1);
	const hash = hashPassword(password, cost);
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<never>((_, reject) => {
		const giveUp = () =>
			reject(refusal("Passwords are being checked too slowly to answer in time; nothing was done, retry in 1 s", 1));
		// Refused a turn later: after an event loop stalled past the limit, a hash done meanwhile is taken first (timers
		// run before I/O).
		timer = setTimeout(() => setImmediate(giveUp), ms);
	});
	try {
		return await Promise.race([hash, late]);
	} finally {
		clearTimeout(timer);
		// Dropped when late: its failure (if any) is nobody's to report.
		hash.catch(() => undefined);
	}
}

interface StoredHash {
	cost: HashCost;
	salt: Buffer;
	key: Buffer;
}

/** A stored hash's parts, when it is a scrypt hash with sane parameters. */
function parse(stored: string): StoredHash | undefined {
	const [scheme, N, r, p, salt, key] = stored.split("$");
	const cost = { N: Number(N), r: Number(r), p: Number(p) };
	if (scheme !== "scrypt" || !salt || !key) return undefined;
	const sane = (value: number, max: number) => Number.isInteger(value) && value >= 1 && value <= max;
	if (
		!sane(cost.N, largest.N) ||
		(cost.N & (cost.N - 1)) !== 0 ||
		cost.N < 2 ||
		!sane(cost.r, largest.r) ||
		!sane(cost.p, largest.p)
	)
		return undefined;
	return { cost, salt: Buffer.from(salt, "base64"), key: Buffer.from(key, "base64") };
}

/** Whether the password matches the stored hash, compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
	const hash = parse(stored);
	if (!hash) return false;
	const actual = await derive(password, hash.salt, hash.cost);
	return actual.length === hash.key.length && timingSafeEqual(actual, hash.key);
}

/** Whether a stored hash costs less than new hashes do (so sign-in should hash the password again). */
export function needsRehash(stored: string, cost: HashCost = currentCost()): boolean {
	const hash = parse(stored);
	if (!hash) return false;
	return hash.cost.N < cost.N || hash.cost.r < cost.r || hash.cost.p < cost.p;
}

let decoys: { cost: string; hash: Promise<string> } | undefined;

/**
 * A hash of nothing anyone knows, at the current cost: checked for unknown accounts, so that they take as long as known
 * ones.
 */
export function decoyHash(): Promise<string> {
	const cost = JSON.stringify(currentCost());
	if (decoys?.cost !== cost) {
		const hash = hashPassword(randomBytes(16).toString("hex"));
		decoys = { cost, hash };
		// Refused under load: made again next time, not kept failed.
		hash.catch(() => {
			if (decoys?.hash === hash) decoys = undefined;
		});
	}
	return decoys.hash;
}
