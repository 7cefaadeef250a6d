import { Operation } from "../shared/catalogue";
import { PlazaConfig } from "../shared/config";
import { failures } from "../shared/errors";
import { baseUrlOf } from "./base-url";
import { IdentifiedRequest } from "./identify";

type CrossSiteConfig = Pick<PlazaConfig, "corsOrigins" | "trustProxy">;

/**
 * Refuses (403) a cross-site write (PRODUCT.md §3): an operation that is not a read, called by a
 * caller known only by credentials a browser adds to any site's request by itself (the session
 * cookie, and Basic or Digest credentials it replays after a prompt), when it comes by GET or HEAD
 * (a link or an `<img>` is enough), from an `Origin` (or, without one, a `Referer`) that is neither
 * Plaza's own nor listed in CORS_ORIGINS (`Origin: null`, sent by sandboxed and privacy-sensitive
 * contexts, counts as foreign), or with `Sec-Fetch-Site: cross-site`.
 *
 * A public write (sign-in, registration, an invitation's conversion) is refused from another site
 * whatever the request carries: it needs no credentials to sign the browser into the other site's
 * account (login CSRF). Not refused: reads (the browser's same-origin policy keeps their answer from
 * the other site); callers who sent X-ss-id or Bearer credentials (a browser never adds those by
 * itself); requests with neither Origin nor Referer that come by another verb (clients outside a
 * browser). Public operations lend the request no authority, so they are not refused for coming by
 * GET: `GET /auth` reads the current session and `GET /auth/logout` ends it, as ServiceStack clients
 * call them; a browser's cross-site GET is still refused by the other rules.
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
