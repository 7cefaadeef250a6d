import { Context } from "moleculer";

/** Who is calling, as the gateway established it; travels in `ctx.meta.user` to every service. */
export interface Caller {
	/** The signed-in user's id; absent for the administrator's API key. */
	userId?: string;
	userName?: string;
	displayName?: string;
	roles: string[];
	/** The key of the session the caller came with, if any (it is what signing out ends). */
	sessionKey?: string;
	/** The API key the caller came with, if any: its id (its name in budgets and logs) and hash (what revoking ends). */
	apiKey?: { id: number; hash: string };
	/** The scopes the credential is limited to (`posts:read`…); absent: the whole access of the caller's roles. */
	scopes?: string[];
}

/** Who a caller is in log lines: their API key, else their user, else the administrator's key (null: nobody). */
export function credentialOf(caller: Caller | undefined): string | null {
	if (!caller) return null;
	if (caller.apiKey) return `apikey:${caller.apiKey.id}`;
	return caller.userId ? `user:${caller.userId}` : "admin";
}

/**
 * What a service asks the gateway to do with the caller's session cookies: set them for a new
 * session, or clear them. Services say it in `ctx.meta.session`; only the gateway knows cookies.
 */
export type SessionDirective = { open: { token: string; persistent: boolean; ttlSeconds: number } } | { end: true };

/** Tokens a service asks the gateway to set as ServiceStack's `ss-tok` (bearer) and `ss-reftok` (refresh) cookies. */
export interface TokenCookies {
	bearer?: { token: string; maxAgeSeconds: number };
	refresh: { token: string; maxAgeSeconds: number };
}

export interface SessionMeta {
	session?: SessionDirective;
	tokenCookies?: TokenCookies;
	/** The refresh token the request carried in its `ss-reftok` cookie. */
	refreshTokenCookie?: string;
	/** The client's network address, for sign-in limits and audit lines. */
	clientIp?: string;
}

/** What the gateway tells every call about the request it serves. */
export interface RequestMeta extends SessionMeta {
	/** The base URL the client reached Plaza at (the API description names it). */
	baseUrl?: string;
}

/** The scope of an answer that is its caller's alone, but that the gateway may keep for that caller (a feed). */
export const CALLER_SCOPE = "caller";

/** What an action whose answer the gateway may keep (`cacheResponse`) says of who else gets the same answer. */
export interface ResponseScopeMeta {
	/**
	 * A name for every caller who gets this same answer to the same request, or CALLER_SCOPE; unset: the answer is not
	 * kept.
	 */
	responseScope?: string;
	/**
	 * The records the answer is made of, by hot cache (`{ posts: [id] }`): a write that invalidates one of them drops it.
	 */
	responseRecords?: Record<string, string[]>;
	/** When the answer goes stale by itself (a listed post expires), in ms since the epoch. */
	responseExpiresAt?: number;
}

export interface CallerMeta {
	user?: Caller | null;
}

export const ADMIN = "Admin";

export function callerOf(ctx: Context): Caller | undefined {
	return (ctx.meta as CallerMeta).user ?? undefined;
}

export function isAdmin(caller: Caller | undefined): boolean {
	return !!caller?.roles.includes(ADMIN);
}
