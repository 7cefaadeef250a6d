import { IncomingMessage, ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { failures } from "../shared/errors";
import { Caller } from "../shared/caller";
import { PlazaConfig } from "../shared/config";
import { clientAddress } from "./client-address";
import { sessionTokenOf } from "./cookies";

const windowSeconds = 60;

/**
 * The per-minute request budget of a client (rate-limiter-flexible): one budget per session or
 * credential, else per client address. Every answer says where the budget stands
 * (X-Rate-Limit-Limit, -Remaining, and -Reset in epoch milliseconds); a spent one is a 429.
 */
export class RequestBudget {
	private readonly limiter: RateLimiterMemory;

	constructor(private readonly config: PlazaConfig) {
		this.limiter = new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: windowSeconds });
	}

	/** Spends one request of the caller's budget; throws 429 when none is left. */
	async spend(req: IncomingMessage, res: ServerResponse, _caller: Caller | undefined, _address: string | undefined): Promise<void> {
		const limit = this.config.rateLimitPerMinute;
		let state: RateLimiterRes;
		let spent = false;
		try {
			state = await this.limiter.consume(this.keyOf(req));
		} catch (refused) {
			if (!(refused instanceof RateLimiterRes)) throw refused;
			state = refused;
			spent = true;
		}
		res.setHeader("X-Rate-Limit-Limit", limit);
		res.setHeader("X-Rate-Limit-Remaining", Math.max(0, state.remainingPoints));
		res.setHeader("X-Rate-Limit-Reset", Date.now() + state.msBeforeNext);
		if (spent) throw failures.tooManyRequests(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
	}

	private keyOf(req: IncomingMessage): string {
		const credential = req.headers.authorization ?? sessionTokenOf(req);
		return credential ? `c:${createHash("sha256").update(credential).digest("hex")}` : `a:${clientAddress(req, this.config.trustProxy)}`;
	}
}
