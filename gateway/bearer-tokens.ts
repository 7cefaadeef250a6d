import { Context, ServiceBroker } from "moleculer";
import { createLocalJWKSet, JSONWebKeySet, JWTVerifyGetKey } from "jose";
import { Caller } from "../shared/caller";
import { failures, PlazaError } from "../shared/errors";
import { readCall } from "../shared/calls";
import { onInvalidation } from "../shared/cache/node-caches";
import { sessionCache } from "../shared/sessions";
import { verifyBearerToken } from "../shared/tokens/bearer-tokens";

/** How often the key set is read again unasked, and at most how often a token with an unknown `kid` makes it so. */
const rereadMs = 5 * 60_000;
const unknownKeyRereadMs = 5_000;

/**
 * Bearer tokens (JWT) checked here, with no call on the way: the signature against the key set the users nodes
 * publish (read again when a token names a key this gateway has not seen: a rotation), and the session it names
 * against the sessions this gateway heard end (a sign-out, a password change, a stolen refresh token) while a token
 * of theirs could still be unexpired.
 */
export class BearerTokens {
	private keys?: { verify: JWTVerifyGetKey; readAt: number };

	private readonly ended = new Map<string, number>();

	constructor(
		broker: ServiceBroker,
		private readonly ttlMs: number,
	) {
		onInvalidation(broker, (cache, keys) => {
			if (cache !== sessionCache.name) return;
			const now = Date.now();
			for (const [key, until] of this.ended) if (until <= now) this.ended.delete(key);
			for (const key of keys) this.ended.set(key, now + this.ttlMs);
		});
	}

	async callerOf(ctx: Context, token: string): Promise<Caller> {
		let verified = await verifyBearerToken(token, await this.keySet(ctx, false));
		if ("refused" in verified && verified.refused === "unknown-key")
			verified = await verifyBearerToken(token, await this.keySet(ctx, true));
		if ("refused" in verified) {
			if (verified.refused === "expired") throw new PlazaError(401, "TokenException", "Token has expired");
			throw failures.unauthorized("The bearer token is not valid");
		}
		if (this.ended.has(String(verified.caller.sessionKey)))
			throw new PlazaError(401, "TokenException", "Token has been invalidated");
		return verified.caller;
	}

	private async keySet(ctx: Context, unknownKey: boolean): Promise<JWTVerifyGetKey> {
		const age = this.keys ? Date.now() - this.keys.readAt : Infinity;
		if (!this.keys || age > rereadMs || (unknownKey && age > unknownKeyRereadMs)) {
			const set = await readCall<JSONWebKeySet, Record<string, never>>(ctx, "sessions.keySet", {});
			this.keys = { verify: createLocalJWKSet(set), readAt: Date.now() };
		}
		return this.keys.verify;
	}
}
