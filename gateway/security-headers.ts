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
