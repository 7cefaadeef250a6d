import { ServerResponse } from "node:http";

/** Headers every API response carries: no sniffing, no framing, no referrer, no caching of personal data. */
export function setSecurityHeaders(res: ServerResponse, secure: boolean): void {
	res.setHeader("X-Content-Type-Options", "nosniff");
	res.setHeader("X-Frame-Options", "DENY");
	res.setHeader("Referrer-Policy", "no-referrer");
	res.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
	res.setHeader("Cache-Control", "no-store");
	if (secure) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
}

/**
 * The API page (Swagger UI) runs its own scripts and styles and calls the API from the page, so its
 * routes, and only they, allow what it needs: scripts, styles and images from Plaza itself (and
 * inline styles and data: images, which Swagger UI sets), requests to Plaza.
 */
export function setPagePolicy(res: ServerResponse): void {
	res.setHeader(
		"Content-Security-Policy",
		"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	);
}
