import { IncomingMessage, ServerResponse } from "node:http";
import cors from "cors";
import { PlazaConfig } from "../shared/config";

/** What a browser's script on a listed origin may send, and read of the answer. */
const allowedMethods = ["GET", "HEAD", "POST", "PUT", "DELETE"];
const allowedHeaders = ["Content-Type", "X-ss-id", "Authorization", "X-Request-ID", "traceparent", "Idempotency-Key"];
const exposedHeaders = [
	"X-Request-ID",
	"traceparent",
	"X-Status",
	"X-Rate-Limit-Limit",
	"X-Rate-Limit-Remaining",
	"X-Rate-Limit-Reset",
	"Retry-After",
];
/** How long a browser may keep a preflight's answer. */
const preflightMaxAgeSeconds = 600;

/** Adds CORS headers to a response (a preflight is answered by the gateway's OPTIONS route, with them). */
export type CorsHeaders = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * CORS (the `cors` package) for the origins of CORS_ORIGINS only: such an origin is answered with
 * itself in Access-Control-Allow-Origin, credentials allowed, and a preflight with the methods and
 * headers above; any other origin gets no CORS header at all. Undefined when CORS_ORIGINS is unset:
 * no CORS, Plaza's own origin only.
 */
export function corsFor(config: Pick<PlazaConfig, "corsOrigins">): CorsHeaders | undefined {
	if (config.corsOrigins.length === 0) return undefined;
	const listed = new Set(config.corsOrigins.filter(origin => origin !== "null"));
	const middleware = cors({
		origin: (origin, allow) => allow(null, origin !== undefined && listed.has(origin) ? origin : false),
		credentials: true,
		methods: allowedMethods,
		allowedHeaders,
		exposedHeaders,
		maxAge: preflightMaxAgeSeconds,
		preflightContinue: true,
	});
	return (req, res) =>
		new Promise((resolve, reject) => {
			// The answer depends on the Origin whether or not it is listed (cors says so only for listed ones).
			res.setHeader("Vary", "Origin");
			middleware(req, res, err => (err ? reject(err) : resolve()));
		});
}
