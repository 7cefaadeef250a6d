import { IncomingMessage } from "node:http";
import { SessionDirective } from "../shared/caller";

/** The request's cookies by name (the first of a name wins). */
export function readCookies(req: IncomingMessage): Map<string, string> {
	const cookies = new Map<string, string>();
	for (const part of (req.headers.cookie ?? "").split(";")) {
		const at = part.indexOf("=");
		if (at < 1) continue;
		const name = part.slice(0, at).trim();
		if (!cookies.has(name)) cookies.set(name, decodeURIComponent(part.slice(at + 1).trim()));
	}
	return cookies;
}

/**
 * The session token a request carries, ServiceStack-style: the `X-ss-id` header, else `ss-pid` when
 * `ss-opt=perm` (a RememberMe session), else `ss-id`.
 */
export function sessionTokenOf(req: IncomingMessage): string | undefined {
	const header = req.headers["x-ss-id"];
	if (typeof header === "string" && header) return header;
	const cookies = readCookies(req);
	return (cookies.get("ss-opt") === "perm" ? cookies.get("ss-pid") : undefined) ?? cookies.get("ss-id") ?? cookies.get("ss-pid");
}

/** Set-Cookie values that carry out a service's session directive. */
export function sessionCookies(directive: SessionDirective, secure: boolean): string[] {
	const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
	const clear = (name: string) => `${name}=; Max-Age=0; ${attributes}`;
	if ("end" in directive) return ["ss-id", "ss-pid", "ss-opt"].map(clear);
	const { token, persistent, ttlSeconds } = directive.open;
	if (!persistent) return [`ss-id=${token}; ${attributes}`, clear("ss-pid"), clear("ss-opt")];
	const lasting = `Max-Age=${Math.floor(ttlSeconds)}; ${attributes}`;
	return [`ss-id=${token}; ${attributes}`, `ss-pid=${token}; ${lasting}`, `ss-opt=perm; ${lasting}`];
}
