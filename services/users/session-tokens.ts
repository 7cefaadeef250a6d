import { createHash, randomBytes } from "node:crypto";
import { Context } from "moleculer";
import { Caller, SessionMeta } from "../../shared/caller";
import { PlazaError } from "../../shared/errors";
import { checkScopes } from "../../shared/access";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { signBearerToken } from "../../shared/tokens/bearer-tokens";
import { SessionsRepository } from "./sessions.repository";
import { SigningKeys } from "./signing-keys";

/** A sign-in's tokens as AuthResponse carries them (none when they went as cookies). */
export interface IssuedTokens {
	BearerToken?: string;
	RefreshToken?: string;
	RefreshTokenExpiry?: number;
}

/** A session the tokens are a view of: its key (what `sid` names) and how long it lives unused. */
export interface TokenSession {
	key: string;
	ttlMs: number;
}

/** A refresh token: 256 random bits, base64url. */
const refreshFormat = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** ServiceStack's error code for a token that expired or was taken back (its clients tell it from a bad request). */
export const tokenRefused = (message: string) => new PlazaError(401, "TokenException", message);

/**
 * Bearer and refresh tokens (ServiceStack's JwtAuthProvider) as a view of a session: the bearer token names its
 * session (`sid`), a refresh token belongs to it, and both end with it (sign-out, password change, an account taken
 * back, expiry). Each trade of a refresh token gives a new one; trading one a second time is a theft, and ends the
 * session.
 */
export class SessionTokens {
	constructor(
		private readonly repo: RepositoryContract<SessionsRepository>,
		private readonly keys: SigningKeys,
		private readonly bearerTtlSeconds: number,
	) {}

	/** A new pair for a session; as cookies (ss-tok, ss-reftok) when the client asked for them. */
	async issue(ctx: Context, caller: Caller, session: TokenSession, asCookies: boolean): Promise<IssuedTokens> {
		const now = Date.now();
		const refresh = randomBytes(32).toString("base64url");
		const expires = now + session.ttlMs;
		await this.repo.tokens.addRefreshToken({
			Id: hashOf(refresh),
			SessionKey: session.key,
			CreatedTime: now,
			ExpiresTime: expires,
		});
		const bearer = await signBearerToken(await this.keys.current(), caller, session.key, this.bearerTtlSeconds);
		if (!asCookies) return { BearerToken: bearer.token, RefreshToken: refresh, RefreshTokenExpiry: expires };
		(ctx.meta as SessionMeta).tokenCookies = {
			bearer: { token: bearer.token, maxAgeSeconds: this.bearerTtlSeconds },
			refresh: { token: refresh, maxAgeSeconds: session.ttlMs / 1000 },
		};
		return {};
	}

	/**
	 * A new pair for a refresh token (the ss-reftok cookie, which a cookie-keeping client holds the newest of, else the
	 * body's). A malformed one is 400, an unknown, expired or ended one 401 TokenException; a second trade ends the
	 * session and returns its key (the caller announces it), then 401.
	 */
	async refresh(
		ctx: Context<unknown, SessionMeta>,
		sent: string | undefined,
		asCookies: boolean,
		scopes?: readonly string[],
	): Promise<{ issued: IssuedTokens } | { stolen: string }> {
		checkScopes(scopes);
		const token = ctx.meta.refreshTokenCookie || sent;
		if (!token || !refreshFormat.test(token))
			throw new PlazaError(400, "ArgumentException", "RefreshToken is missing or is not a refresh token");
		const now = Date.now();
		const used = await this.repo.tokens.useRefreshToken(hashOf(token), now);
		if (!used) throw tokenRefused("The refresh token is not valid");
		if (!used.firstUse) return { stolen: used.row.SessionKey };
		const session = await this.repo.find(used.row.SessionKey);
		if (used.row.ExpiresTime <= now || !session || session.ExpiresTime <= now)
			throw tokenRefused("The refresh token has expired");
		await this.repo.slide(session.Id, now);
		const caller: Caller = {
			userId: session.UserId,
			userName: session.UserName,
			displayName: session.DisplayName ?? "",
			roles: session.Roles,
			...(scopes?.length ? { scopes: [...new Set(scopes)] } : {}),
		};
		const issued = await this.issue(ctx, caller, { key: session.Id, ttlMs: session.TtlMs }, asCookies);
		// The new refresh token goes as a cookie too: a client that keeps cookies but not the answer's RefreshToken
		// (@servicestack/client) sends that one next, so its own next trade is not taken for a theft.
		if (!asCookies && issued.RefreshToken)
			ctx.meta.tokenCookies = { refresh: { token: issued.RefreshToken, maxAgeSeconds: session.TtlMs / 1000 } };
		return { issued };
	}
}
