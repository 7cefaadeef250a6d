import { IncomingMessage } from "node:http";
import { parse } from "cookie";
import { ServerResponse } from "node:http";
import { SessionDirective, SessionMeta, TokenCookies } from "../shared/caller";

/**
 * The request's cookies by name (the `cookie` package: the first of a name wins, and a value whose
 * %-escapes do not decode is kept as sent, so a malformed cookie is never a failure).
 */
export function readCookies(req: IncomingMessage): Record<string, string | undefined> {
	const header = req.headers.cookie;
	return header ? parse(header) : {};
}

/** A session token and whether it came in a cookie (which a browser adds by itself) or in the X-ss-id header. */
export interface SessionToken {
	token: string;
	byCookie: boolean;
}

/**
 * The session token a request carries, ServiceStack-style: the `X-ss-id` header, else `ss-pid` when
 * `ss-opt=perm` (a RememberMe session), else `ss-id`. `cookies: false` reads the header only.
 */
export function sessionTokenFrom(req: IncomingMessage, { cookies }: { cookies: boolean }): SessionToken | undefined {
	const header = req.headers["x-ss-id"];
	if (typeof header === "string" && header) return { token: header, byCookie: false };
	if (!cookies) return undefined;
	const jar = readCookies(req);
	const token = (jar["ss-opt"] === "perm" ? jar["ss-pid"] : undefined) || jar["ss-id"] || jar["ss-pid"];
	return token ? { token, byCookie: true } : undefined;
}

/** Set-Cookie values that carry out a service's session directive. */
export function sessionCookies(directive: SessionDirective, secure: boolean): string[] {
	const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
	const clear = (name: string) => `${name}=; Max-Age=0; ${attributes}`;
	if ("end" in directive) return ["ss-id", "ss-pid", "ss-opt", "ss-tok", "ss-reftok"].map(clear);
	const { token, persistent, ttlSeconds } = directive.open;
	if (!persistent) return [`ss-id=${token}; ${attributes}`, clear("ss-pid"), clear("ss-opt")];
	const lasting = `Max-Age=${Math.floor(ttlSeconds)}; ${attributes}`;
	return [`ss-id=${token}; ${attributes}`, `ss-pid=${token}; ${lasting}`, `ss-opt=perm; ${lasting}`];
}

/** Set-Cookie values for tokens a service issued (ServiceStack's names); they last as long as the tokens. */
function tokenCookies({ bearer, refresh }: TokenCookies, secure: boolean): string[] {
	const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
	const cookie = (name: string, { token, maxAgeSeconds }: { token: string; maxAgeSeconds: number }) =>
		`${name}=${token}; Max-Age=${Math.floor(maxAgeSeconds)}; ${attributes}`;
	return [...(bearer ? [cookie("ss-tok", bearer)] : []), cookie("ss-reftok", refresh)];
}

/**
 * The cookies a call asked for (a session, tokens), and `X-Cookies`, which tells ServiceStack's clients to refresh by
 * cookie.
 */
export function setResponseCookies(res: ServerResponse, meta: SessionMeta, secure: boolean): void {
	const cookies = [
		...(meta.session ? sessionCookies(meta.session, secure) : []),
		...(meta.tokenCookies ? tokenCookies(meta.tokenCookies, secure) : []),
	];
	if (cookies.length) res.setHeader("Set-Cookie", cookies);
	if (meta.tokenCookies) res.setHeader("X-Cookies", meta.tokenCookies.bearer ? "ss-tok,ss-reftok" : "ss-reftok");
}
