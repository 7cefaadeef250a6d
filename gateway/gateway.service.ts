import { IncomingMessage, ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { Context, ServiceSchema, Service } from "moleculer";
import ApiGateway, { ApiRouteSchema, ApiSettingsSchema, IncomingRequest } from "moleculer-web";
import { PlazaConfig } from "../shared/config";
import { Operation } from "../shared/catalogue";
import { writerFor } from "../shared/wire/write";
import { failures } from "../shared/errors";
import { catalogueRoutes, operationListing, RouteGroup, Surface } from "./routes";
import { readMultipart } from "./multipart";
import { FileRecord, sendFile } from "./download";
import { PerformedRequest, performOperation, recordPerformed } from "./perform";
import { negotiateFormat } from "./format";
import { FormatRequest, sendJson } from "./respond";
import { describeFailure } from "./errors";
import { clientAddress, IdentifiedRequest, Identifier, isSecure } from "./identify";
import { sessionCookies, sessionTokenOf } from "./cookies";
import { setSecurityHeaders } from "./security-headers";
import { callerOf, isAdmin, RequestMeta, SessionMeta } from "../shared/caller";
import { isReady } from "../shared/probes";
import { prometheusText, registerOperationMetrics } from "../shared/metrics";
import { baseUrlOf } from "./base-url";
import { soapAliases } from "./soap/routes";
import { isSoapCall, sendSoapFailure, SoapRequest } from "./soap/handler";
import { descriptionAliases } from "./description/routes";

type Request = IncomingRequest & FormatRequest & IdentifiedRequest & PerformedRequest & { body?: unknown };

interface GatewayMethods {
	dispatch(op: Operation | undefined, surface: Surface, req: Request, res: ServerResponse): Promise<void>;
	writeFailure(req: IncomingMessage, res: ServerResponse, err: unknown): void;
	logAccess(req: Request, res: ServerResponse): void;
}

type GatewayThis = Service & GatewayMethods;

/**
 * The HTTP face of Plaza, made from the operation catalogue: REST routes, the generic reply route,
 * one error shape. It knows protocols, not domains: no operation is named here.
 */
export function gatewayService(config: PlazaConfig): ServiceSchema {
	const httpHandler = (ApiGateway.methods as Record<string, (this: Service, ...args: unknown[]) => unknown>).httpHandler;
	const identifier = new Identifier(config);
	// In the JSON (production) log format every request is an info line; in the short one, debug.
	const accessLogLevel = config.logFormat === "json" ? "info" : "debug";

	/** A moleculer-web route for a group of aliases: all alike but for the body limit. */
	const route = (group: RouteGroup, more: ApiRouteSchema["aliases"]): ApiRouteSchema => ({
		// Routes on one path need names, or moleculer-web takes them for one and keeps the last one's aliases.
		name: `bodies-up-to-${group.maxBodyBytes}`,
		path: "/",
		mappingPolicy: "restrict",
		autoAliases: false,
		authentication: true,
		rateLimit: {
			window: 60_000,
			limit: config.rateLimitPerMinute,
			headers: true,
			// One budget per session or credential, else per client address.
			key: (req: IncomingMessage) => {
				const credential = req.headers.authorization ?? sessionTokenOf(req);
				return credential ? `c:${createHash("sha256").update(credential).digest("hex")}` : `a:${clientAddress(req, config.trustProxy)}`;
			},
		},
		bodyParsers: {
			json: { strict: true, limit: group.maxBodyBytes },
			urlencoded: { extended: false, limit: group.maxBodyBytes },
		},
		aliases: { ...more, ...(group.aliases as ApiRouteSchema["aliases"]) },
	});

	const schema: ServiceSchema<ApiSettingsSchema> = {
		name: "gateway",
		mixins: [ApiGateway],
		settings: {
			port: config.port,
			// Request lines and parameters may hold credentials: moleculer-web does not log them.
			logRequest: null,
			logRequestParams: null,
			logResponse: null,
			log4XXResponses: false,
			routes: catalogueRoutes(function (this: unknown, op, surface, req, res) {
				void (this as GatewayThis).dispatch(op, surface, req as Request, res);
			}, config.maxBodyBytes).map((group, i) =>
				// The first group has the default body limit; the gateway's own routes, SOAP and the description go there.
				route(group, i > 0 ? {} : {
					"GET /health"(req: Request, res: ServerResponse) {
						sendJson(req, res, 200, { Status: "Up" });
					},
					"GET /operations"(req: Request, res: ServerResponse) {
						sendJson(req, res, 200, operationListing());
					},
					"GET /ready"(this: GatewayThis, req: Request, res: ServerResponse) {
						const ready = isReady(this.broker);
						sendJson(req, res, ready ? 200 : 503, { Status: ready ? "Ready" : "NotReady" });
					},
					// Prometheus text for the administrator's key (scrapers send it as a Bearer token); the probe port serves it openly inside.
					"GET /metrics"(this: GatewayThis, req: Request, res: ServerResponse) {
						if (!isAdmin(callerOf(req.$ctx))) return this.writeFailure(req, res, callerOf(req.$ctx) ? failures.forbidden() : failures.unauthorized());
						res.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
						res.end(prometheusText(this.broker) ?? "");
					},
					...soapAliases(config),
					...descriptionAliases(),
				}),
			),
			// moleculer-web hands every failure (routing, body parsing, actions) to this one writer.
			onError(this: GatewayThis, req: IncomingMessage, res: ServerResponse, err: unknown) {
				this.writeFailure(req, res, err);
			},
		},

		created(this: Service) {
			registerOperationMetrics(this.broker);
		},

		methods: {
			/** Format negotiation happens before routing, so `/Users.json` finds `/Users`. */
			httpHandler(this: GatewayThis, req: Request, res: ServerResponse, next?: unknown) {
				setSecurityHeaders(res, isSecure(req, config.trustProxy));
				this.logAccess(req, res);
				req.$rawUrl = req.url;
				try {
					negotiateFormat(req);
				} catch (err) {
					return this.writeFailure(req, res, err);
				}
				return httpHandler.call(this, req, res, next);
			},

			async authenticate(ctx: Context<unknown, RequestMeta>, _route: unknown, req: Request) {
				ctx.meta.clientIp = clientAddress(req, config.trustProxy);
				ctx.meta.baseUrl = baseUrlOf(req, config.trustProxy);
				return (await identifier.identify(ctx, req)) ?? null;
			},

			async dispatch(this: GatewayThis, op: Operation | undefined, surface: Surface, req: Request, res: ServerResponse) {
				try {
					if (!op) throw failures.notFound(`The operation ${String(req.$params?.operation)}`);
					if (Array.isArray(req.body)) throw failures.invalidBody("The request body must be a JSON object");
					const { operation: _ignored, ...params } = (req.$params ?? {}) as Record<string, unknown>;
					if (/^multipart\/form-data/i.test(req.headers["content-type"] ?? "")) Object.assign(params, await readMultipart(req, op.maxBodyBytes ?? config.maxBodyBytes));
					const result = await performOperation(req.$ctx, req, op, surface, params);
					const session = (req.$ctx.meta as SessionMeta).session;
					if (session) res.setHeader("Set-Cookie", sessionCookies(session, isSecure(req, config.trustProxy)));
					if (op.download && surface === "rest") sendFile(req, res, result as FileRecord);
					else sendJson(req, res, 200, writerFor(op.response)(result));
					recordPerformed(req.$ctx, req, res.statusCode);
				} catch (err) {
					this.writeFailure(req, res, err);
				}
			},

			/** One structured line per request when it ends; the path only, as a query string may carry credentials. */
			logAccess(this: GatewayThis, req: Request, res: ServerResponse) {
				const started = process.hrtime.bigint();
				const path = (req.url ?? "").split("?")[0];
				res.once("finish", () => {
					this.logger[accessLogLevel](
						{ event: "request", method: req.method, path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, requestID: res.getHeader("X-Request-ID"), operation: req.$operation?.name },
						`${req.method} ${path} ${res.statusCode}`,
					);
				});
			},

			writeFailure(this: GatewayThis, req: IncomingMessage, res: ServerResponse, err: unknown) {
				const failure = describeFailure(err, config.development);
				recordPerformed((req as Request).$ctx, req, failure.status);
				// The path only: a query string may carry credentials.
				if (failure.internal) this.logger.error(`${req.method} ${(req.url ?? "").split("?")[0]} failed:`, err);
				if (failure.status === 429) res.setHeader("Retry-After", String(failure.retryAfter ?? secondsUntil(res.getHeader("X-Rate-Limit-Reset"))));
				const challenge = failure.status === 401 && identifier.challenge();
				if (challenge) res.setHeader("WWW-Authenticate", challenge);
				if (isSoapCall(req)) void sendSoapFailure(config, req as SoapRequest, res, failure);
				else sendJson(req as Request, res, failure.status, { ResponseStatus: failure.responseStatus });
			},
		},
	};
	return schema as unknown as ServiceSchema;
}

/** Seconds until the rate limiter's window resets (its header holds the time in milliseconds). */
function secondsUntil(resetAt: unknown): number {
	const ms = Number(resetAt) - Date.now();
	return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 60;
}
