import { ServerResponse } from "node:http";
import { Context, Service } from "moleculer";
import { failures } from "../shared/errors";
import { Caller } from "../shared/caller";
import { PlazaConfig } from "../shared/config";
import { AddAttempts, AttemptTotals, windowStart } from "../shared/attempts";

const windowMs = 60_000;
/** How often counts go to the shared counters: a store write per request would cost more than most requests. */
const flushEveryMs = 250;
/** Past this the shared counters are taken for unreachable, and this gateway decides on its own counts. */
const storeTimeoutMs = 1000;
const warnEveryMs = 60_000;
/**
 * The last requests of a budget (a twentieth, at least 5) are counted in the shared counter before they are answered.
 */
const nearTheEnd = (limit: number) => Math.max(5, Math.ceil(limit / 20));

/**
 * Whose budget a request spends: the verified caller's (each API key its own; the administrator's key one), else the
 * client address's.
 */
export function budgetKeyOf(caller: Caller | undefined, address: string | undefined): string {
	if (caller?.apiKey) return `req:k:${caller.apiKey.id}`;
	if (caller?.userId) return `req:u:${caller.userId}`;
	if (caller) return "req:admin";
	return `req:a:${address ?? "unknown"}`;
}

/**
 * A caller's per-minute budget in fixed windows, counted in the counters every gateway shares (the limits service),
 * so that it neither multiplies with gateways nor resets at a restart. Counts are sent in batches; a request is
 * decided on the last shared total plus what this gateway counted since, but a caller's first request of a window
 * here and the last few of a budget wait for the shared total. Answers carry X-Rate-Limit-Limit, -Remaining and
 * -Reset (epoch ms); a spent budget is a 429, refused without asking the store again.
 */
export class RequestBudget {
	private window = 0;

	/**
	 * Each caller's total in the shared counter of this window as last answered (this gateway's sent counts included).
	 */
	private readonly shared = new Map<string, number>();

	/** Counts not sent yet, and counts sent but not answered yet. */
	private pending = new Map<string, number>();

	private sending = new Map<string, number>();

	private timer?: NodeJS.Timeout;

	private stopped = false;

	/** The next batch (callers wait for it), and the one under way. */
	private queued?: Promise<void>;

	private underWay: Promise<void> = Promise.resolve();

	private warnedAt = 0;

	constructor(
		private readonly config: PlazaConfig,
		/** The gateway's service: the calls to the limits service name it as their caller. */
		private readonly service: Service,
	) {}

	/** Spends one request of the caller's (else the address's) budget; throws 429 when none is left. */
	async spend(res: ServerResponse, caller: Caller | undefined, address: string | undefined): Promise<void> {
		const limit = this.config.rateLimitPerMinute;
		this.turnTo(windowStart(Date.now(), windowMs));
		const key = budgetKeyOf(caller, address);
		let used = this.usedBy(key);
		if (this.shared.has(key) && (used >= limit || limit - used > nearTheEnd(limit))) {
			if (used < limit) {
				this.count(key);
				this.sendSoon();
			}
		} else {
			// A caller new to this gateway in this window, or near the end of its budget: decided on the shared total.
			this.count(key);
			await this.sendNow();
			used = Math.max(0, this.usedBy(key) - 1);
		}
		const resetAt = this.window + windowMs;
		res.setHeader("X-Rate-Limit-Limit", limit);
		res.setHeader("X-Rate-Limit-Remaining", Math.max(0, limit - used - 1));
		res.setHeader("X-Rate-Limit-Reset", resetAt);
		if (used >= limit) throw failures.tooManyRequests(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)));
	}

	private usedBy(key: string): number {
		return (this.shared.get(key) ?? 0) + (this.pending.get(key) ?? 0) + (this.sending.get(key) ?? 0);
	}

	private count(key: string): void {
		this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
	}

	/** A new window: every budget starts again (counts of the last one not sent yet no longer matter). */
	private turnTo(window: number): void {
		if (window === this.window) return;
		this.window = window;
		this.shared.clear();
		this.pending.clear();
		this.sending = new Map();
	}

	/** The gateway has stopped taking requests: no more batches (the limits service may be stopping too). */
	stop(): void {
		this.stopped = true;
		clearTimeout(this.timer);
		this.timer = undefined;
	}

	private sendSoon(): void {
		if (this.stopped || this.timer || this.queued) return;
		this.timer = setTimeout(() => void this.sendNow().catch(err => this.warn(this.service, err)), flushEveryMs);
		this.timer.unref();
	}

	/** Sends the counts in the next batch (after the one under way; callers of the same turn share it). */
	private sendNow(): Promise<void> {
		this.queued ??= this.underWay
			.then(() => new Promise(resolve => setImmediate(resolve)))
			.then(() => {
				this.queued = undefined;
				clearTimeout(this.timer);
				this.timer = undefined;
				return (this.underWay = this.send());
			});
		return this.queued;
	}

	private async send(): Promise<void> {
		const service = this.service;
		if (this.stopped || this.pending.size === 0) return;
		const window = this.window;
		const batch = (this.sending = this.pending);
		this.pending = new Map();
		try {
			const totals = await this.add(service, { window, windowMs, counts: Object.fromEntries(batch) });
			if (window === this.window) for (const [key, total] of Object.entries(totals)) this.shared.set(key, total);
		} catch (err) {
			// The store out of reach: this gateway goes on alone with what it counted.
			if (window === this.window) for (const [key, n] of batch) this.shared.set(key, (this.shared.get(key) ?? 0) + n);
			this.warn(service, err);
		} finally {
			if (this.sending === batch) this.sending = new Map();
		}
	}

	/** limits.add as a call of the gateway's service, as the gateway's own requests are. */
	private add(service: Service, counts: AddAttempts): Promise<AttemptTotals> {
		const ctx = Context.create(service.broker);
		ctx.service = service;
		ctx.meta = {};
		return ctx.call<AttemptTotals, AddAttempts>("limits.add", counts, { timeout: storeTimeoutMs });
	}

	private warn(service: Service, err: unknown): void {
		if (Date.now() - this.warnedAt < warnEveryMs) return;
		this.warnedAt = Date.now();
		service.logger.warn(
			"The shared request counters are out of reach; budgets are counted on this gateway alone meanwhile:",
			err,
		);
	}
}
