import { Operation } from "../shared/catalogue";
import { PlazaConfig } from "../shared/config";
import { failures } from "../shared/errors";
import { baseUrlOf } from "./base-url";
import { IdentifiedRequest } from "./identify";

type CrossSiteConfig = Pick<PlazaConfig, "corsOrigins" | "trustProxy">;

/**
 * Refuses (403) a cross-site write (PRODUCT.md §3): a non-read whose caller is known only by credentials a browser
 * adds by itself (session cookie, replayed Basic or Digest), or any public write (login CSRF), when it comes from an
 * Origin (else Referer) neither Plaza's nor in CORS_ORIGINS (`Origin: null` is foreign) or with `Sec-Fetch-Site:
 * cross-site`; the first kind also when it comes by GET or HEAD (a link or an `<img>` suffices). Public operations
 * lend no authority, so may come by GET (`GET /auth/logout`). Reads pass: the same-origin policy hides their answer.
 */
export function refuseCrossSiteWrite(op: Operation, req: IdentifiedRequest, config: CrossSiteConfig): void {
	if (op.reads || !(req.$ambient || op.access === "public")) return;
	const reason = crossSiteReason(op, req, config);
	if (!reason) return;
	if (!req.$ambient)
		throw failures.forbidden(`${reason}: ${op.name} from another site is refused, as it would sign this browser in`);
	throw failures.forbidden(
		`${reason}: a change signed in only by credentials the browser adds by itself (cookie, Basic, Digest) is refused; send the session in the X-ss-id header instead`,
	);
}

/**
 * Refuses (403) an event stream (Server Events) opened by a caller known only by credentials a
 * browser adds by itself from another site: it carries the user's private events, and a foreign
 * page's EventSource sends them by itself. Plaza's own pages and CORS_ORIGINS may open one.
 */
export function refuseCrossSiteStream(req: IdentifiedRequest, config: CrossSiteConfig): void {
	if (!req.$ambient) return;
	const reason = foreignSiteReason(req, config);
	if (reason)
		throw failures.forbidden(
			`${reason}: a stream signed in only by credentials the browser adds by itself is refused; send the session in the X-ss-id header instead`,
		);
}

function crossSiteReason(op: Operation, req: IdentifiedRequest, config: CrossSiteConfig): string | undefined {
	const foreign = foreignSiteReason(req, config);
	if (foreign) return foreign;
	if ((req.method === "GET" || req.method === "HEAD") && op.access !== "public")
		return `${op.name} changes something, and so is not run by ${req.method}`;
	return undefined;
}

/** Why the request comes from another site than Plaza's own or CORS_ORIGINS, if it does. */
function foreignSiteReason(req: IdentifiedRequest, config: CrossSiteConfig): string | undefined {
	if (req.headers["sec-fetch-site"] === "cross-site") return "The request comes from another site (Sec-Fetch-Site)";
	const origin = originOf(req);
	if (origin !== undefined && !isTrustedOrigin(origin, req, config))
		return `The request comes from another site (${origin.slice(0, 100)})`;
	return undefined;
}

/**
 * The origin a browser says the request comes from: `Origin`, else the origin of `Referer`; undefined when neither is
 * sent.
 */
function originOf(req: IdentifiedRequest): string | undefined {
	const origin = req.headers.origin;
	if (origin !== undefined) return origin;
	const referer = req.headers.referer;
	if (referer === undefined) return undefined;
	return URL.canParse(referer) ? new URL(referer).origin : "null";
}

/** Plaza's own origin (the scheme and host the request reached) or one of CORS_ORIGINS; never "null". */
function isTrustedOrigin(origin: string, req: IdentifiedRequest, config: CrossSiteConfig): boolean {
	if (!URL.canParse(origin)) return false;
	const normalized = new URL(origin).origin;
	if (normalized === "null") return false;
	return normalized === new URL(baseUrlOf(req, config.trustProxy)).origin || config.corsOrigins.includes(normalized);
}
