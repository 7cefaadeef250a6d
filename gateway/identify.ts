import { timingSafeEqual, createHash } from "node:crypto";
import { Context } from "moleculer";
import { ADMIN, Caller } from "../shared/caller";
import { failures } from "../shared/errors";
import { PlazaConfig } from "../shared/config";
import { DigestAnswer, digestRealm, NonceSigner } from "../shared/digest";
import { readCookies, sessionTokenFrom } from "./cookies";
import { BearerTokens } from "./bearer-tokens";
import { FormatRequest } from "./respond";
import { readCall } from "../shared/calls";
import { cacheOf } from "../shared/cache/node-caches";
import { ResolvedSession, sessionCache, sessionKeyOf } from "../shared/sessions";
import { apiKeyCache, apiKeyFormat, apiKeyHashOf, ResolvedApiKey } from "../shared/api-keys";

/** A request as the gateway sees it before routing changes its URL (its format, JSONP or not, already read). */
export interface IdentifiedRequest extends FormatRequest {
	/** The URL as the client sent it (Digest signs it). */
	$rawUrl?: string;
	/** Whether the caller was known only by credentials a browser sends by itself (see cross-site.ts). */
	$ambient?: boolean;
}

/**
 * Who is calling, and whether only credentials a browser adds by itself said so (X-ss-id and Bearer are sent on
 * purpose).
 */
export interface Identity {
	caller: Caller;
	ambient: boolean;
}

/**
 * Schemes a browser replays by itself to a site once its user has answered a prompt for it (or typed
 * them into a URL): like cookies, they prove nothing about which page sent the request.
 */
const ambientSchemes = new Set(["basic", "digest"]);

/**
 * Who is calling (PRODUCT.md §3): an API key (X-Api-Key, Bearer, or the Basic user name with no password), the
 * Authorization header (Bearer administrator's key or token, Basic, or Digest when on), the ss-tok cookie, or else a
 * session (X-ss-id header or ss-id/ss-pid cookie). JSONP, which a cross-site `<script>`
 * can read, takes no credential a browser adds by itself (cookie, Basic, Digest). Credentials that
 * are present but wrong are refused (401); an unknown, expired or malformed session is simply no session.
 */
export class Identifier {
	private readonly nonces?: NonceSigner;

	constructor(
		private readonly config: PlazaConfig,
		private readonly bearerTokens: BearerTokens,
	) {
		if (config.auth.digest) this.nonces = new NonceSigner(config.auth.digestSecret);
	}

	/**
	 * `publicOperation`: a bearer token that expired or was taken back is no caller there rather than a 401 (a client
	 * refreshing sends its expired token along to GetAccessToken).
	 */
	async identify(ctx: Context, req: IdentifiedRequest, publicOperation = false): Promise<Identity | undefined> {
		const jsonp = req.$jsonp !== undefined;
		const apiKey = req.headers["x-api-key"];
		if (typeof apiKey === "string") return { caller: await this.fromApiKey(ctx, apiKey.trim()), ambient: false };
		const authorization = req.headers.authorization;
		if (authorization) {
			const ambient = ambientSchemes.has(schemeOf(authorization));
			if (!(jsonp && ambient)) {
				const caller = await this.fromAuthorization(ctx, req, authorization).catch((err: unknown) => {
					if (publicOperation && isTokenRefusal(err)) return undefined;
					throw err;
				});
				return caller && { caller, ambient };
			}
		}
		// ServiceStack's ss-tok cookie: a bearer token a browser sends by itself.
		const tokenCookie = jsonp || !req.headers.cookie?.includes("ss-tok=") ? undefined : readCookies(req)["ss-tok"];
		// Like a session cookie, one that is no longer good is simply no caller (the client refreshes it).
		const fromCookie = tokenCookie && (await this.bearerTokens.callerOf(ctx, tokenCookie).catch(() => undefined));
		if (fromCookie) return { caller: fromCookie, ambient: true };
		const session = sessionTokenFrom(req, { cookies: !jsonp });
		const caller = session && (await this.fromSession(ctx, session.token));
		return caller && { caller, ambient: session.byCookie };
	}

	/** WWW-Authenticate for a 401, when Digest is on: a fresh nonce to answer. */
	challenge(): string | undefined {
		return this.nonces && `Digest realm="${digestRealm}", qop="auth", nonce="${this.nonces.issue()}", algorithm=MD5`;
	}

	private async fromAuthorization(ctx: Context, req: IdentifiedRequest, authorization: string): Promise<Caller> {
		const space = authorization.indexOf(" ");
		const value = space < 0 ? "" : authorization.slice(space + 1).trim();
		switch (schemeOf(authorization)) {
			case "bearer":
				if (this.config.adminApiKey && sameSecret(value, this.config.adminApiKey)) return { roles: [ADMIN] };
				if (value.startsWith("ak-")) return this.fromApiKey(ctx, value);
				if (jwtShape.test(value)) return this.bearerTokens.callerOf(ctx, value);
				break;
			case "basic": {
				const decoded = Buffer.from(value, "base64").toString("utf8");
				const colon = decoded.indexOf(":");
				// No account's name or password holds a NUL, and some stores refuse one in a query: simply wrong.
				// ServiceStack's older ApiKeyAuthProvider: the key as the user name, no password.
				if (decoded.startsWith("ak-") && colon === decoded.length - 1)
					return this.fromApiKey(ctx, decoded.slice(0, colon));
				if (colon > 0 && !decoded.includes("\0"))
					return ctx.call<Caller, { UserName: string; Password: string }>("users.verifyCredentials", {
						UserName: decoded.slice(0, colon),
						Password: decoded.slice(colon + 1),
					});
				break;
			}
			case "digest": {
				const answer = this.digestAnswer(req, value);
				if (answer) return ctx.call<Caller, DigestAnswer>("users.verifyDigest", answer);
				break;
			}
		}
		throw failures.unauthorized("The credentials are not valid");
	}

	/**
	 * The caller a session token stands for, through this gateway's cache (by the token's hash): a
	 * resolved session is reused until its next slide is due (so that its expiry keeps sliding), never
	 * past its end, at most 30 s; an unknown one is asked about every time. Ended sessions are
	 * invalidated by the sessions service.
	 */
	private async fromSession(ctx: Context, token: string): Promise<Caller | undefined> {
		const resolved = await cacheOf(ctx.broker, sessionCache).through(
			sessionKeyOf(token),
			async () =>
				(await readCall<ResolvedSession | null, { token: string }>(ctx, "sessions.resolve", { token })) ?? undefined,
			session => session.reusableForMs,
		);
		// A copy: services may hold on to the caller of their call, the cache keeps its own.
		return resolved && { ...resolved.caller, roles: [...resolved.caller.roles] };
	}

	/**
	 * The caller an API key stands for, limited to its scopes, through this gateway's cache (by the key's hash) for at
	 * most 30 s; a key changed or deleted, or its user changed, is dropped on every gateway by that write.
	 */
	private async fromApiKey(ctx: Context, key: string): Promise<Caller> {
		const hash = apiKeyFormat.test(key) ? apiKeyHashOf(key) : undefined;
		const resolved =
			hash &&
			(await cacheOf(ctx.broker, apiKeyCache).through(
				hash,
				async () =>
					(await readCall<ResolvedApiKey | null, { hash: string }>(ctx, "apiKeys.resolve", { hash })) ?? undefined,
				found => found.reusableForMs,
			));
		if (!resolved) throw failures.unauthorized("The API key is not valid, or has been revoked or has expired");
		return { ...resolved.caller, roles: [...resolved.caller.roles] };
	}

	/** The parameters of a Digest answer, when they are complete, fresh and for this request. */
	private digestAnswer(req: IdentifiedRequest, value: string): DigestAnswer | undefined {
		if (!this.nonces) return undefined;
		const fields = new Map<string, string>();
		for (const match of value.matchAll(/(\w+)=(?:"([^"]*)"|([^\s,]+))/g))
			fields.set(match[1].toLowerCase(), match[2] ?? match[3]);
		const [username, realm, nonce, uri, response] = ["username", "realm", "nonce", "uri", "response"].map(k =>
			fields.get(k),
		);
		if (!username || realm !== digestRealm || !nonce || !uri || !response) return undefined;
		if (this.nonces.check(nonce) !== "valid" || uri !== (req.$rawUrl ?? req.url)) return undefined;
		return {
			username,
			realm,
			nonce,
			uri,
			response,
			qop: fields.get("qop"),
			nc: fields.get("nc"),
			cnonce: fields.get("cnonce"),
			method: req.method ?? "GET",
		};
	}
}

const isTokenRefusal = (err: unknown) => (err as { type?: unknown } | null)?.type === "TokenException";

/** Three base64url parts: a JWT (compact JWS). */
const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The Authorization header's scheme, lower-cased. */
function schemeOf(authorization: string): string {
	const space = authorization.indexOf(" ");
	return authorization.slice(0, space < 0 ? undefined : space).toLowerCase();
}

/** Constant-time comparison; hashing first makes the lengths equal. */
export function sameSecret(a: string, b: string): boolean {
	const digest = (s: string) => createHash("sha256").update(s).digest();
	return timingSafeEqual(digest(a), digest(b));
}
