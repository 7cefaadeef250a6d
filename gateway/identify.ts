import { IncomingMessage } from "node:http";
import { timingSafeEqual, createHash } from "node:crypto";
import { ADMIN, Caller } from "../shared/caller";
import { failures } from "../shared/errors";

/**
 * The caller of a request: the administrator when it carries `Authorization: Bearer <ADMIN_API_KEY>`,
 * otherwise anonymous. Credentials that are present but wrong are refused (401), never ignored.
 */
export function identify(req: IncomingMessage, adminApiKey: string | undefined): Caller | undefined {
	const authorization = req.headers.authorization;
	if (!authorization) return undefined;
	const [scheme, token] = authorization.split(/\s+/, 2);
	if (scheme?.toLowerCase() === "bearer" && token && adminApiKey && sameSecret(token, adminApiKey)) return { roles: [ADMIN] };
	throw failures.unauthorized("The credentials are not valid");
}

/** Constant-time comparison; hashing first makes the lengths equal. */
function sameSecret(a: string, b: string): boolean {
	const digest = (s: string) => createHash("sha256").update(s).digest();
	return timingSafeEqual(digest(a), digest(b));
}
