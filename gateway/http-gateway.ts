import http, { IncomingMessage, Server, ServerResponse } from "node:http";
import { Context, Logger, Service, ServiceBroker } from "moleculer";
import qs from "qs";
import { PlazaConfig } from "../shared/config";
import { Operation } from "../shared/catalogue";
import { writerFor } from "../shared/wire/write";
import { failures } from "../shared/errors";
import { Caller, callerOf, credentialOf, RequestMeta, ResponseScopeMeta, SessionMeta } from "../shared/caller";
import { checkSentCall } from "../shared/access";
import { FoundRoute, isBatch, Routes, Surface } from "./routes";
import { performBatch } from "./batch";
import { gatewayPages } from "./pages";
import { readBody } from "./body";
import { refuseDeepFieldNames } from "./nesting";
import { RequestBudget } from "./rate-limit";
import { readMultipart } from "./multipart";
import { FileRecord, sendFile } from "./download";
import { performOperation, recordPerformed } from "./perform";
import { negotiateFormat } from "./format";
import { sendFailure, sendJsonText, sendXml, wireJson } from "./respond";
import { answerXml } from "./xml/write";
import { ResponseCache } from "./response-cache";
import { describeFailure } from "./errors";
import { Identifier } from "./identify";
import { clientAddress, isSecure } from "./client-address";
import { readCookies, setResponseCookies } from "./cookies";
import { BearerTokens } from "./bearer-tokens";
import { setSecurityHeaders } from "./security-headers";
import { baseUrlOf } from "./base-url";
import { isSoapCall, sendSoapFailure, SoapRequest } from "./soap/handler";
import { GatewayRequest } from "./request";
import { parseTraceparent } from "../shared/observability/trace-context";
import { startRequestSpan } from "../shared/observability/request-span";
import { CorsHeaders, corsFor } from "./cors";
import { refuseCrossSiteWrite } from "./cross-site";
import { EventStreams, StreamScopes } from "./events/event-streams";
import { eventPages } from "./events/event-pages";
import { busBarrier } from "../shared/bus/bus-barrier";

/** How long a stopping gateway waits for the requests it accepted. */
const drainMs = 10_000;

/**
 * The HTTP face of Plaza, made from the operation catalogue; it knows protocols, not domains. A request goes: format →
 * route → bus barrier → caller → budget → body → cross-site check → kept answer or operation (or page) → answer.
 * On node:http and find-my-way, not moleculer-web (docs/decisions/0002-own-gateway-over-moleculer-web.md).
 */
export class HttpGateway {
	private readonly routes: Routes;

	private readonly identifier: Identifier;

	private readonly budget: RequestBudget;

	private readonly responses: ResponseCache;

	/** Over NATS, awaited before a request reads anything this node caches (see busBarrier); undefined in one process. */
	private readonly busBarrier: (() => Promise<void>) | undefined;

	/** CORS headers for the origins of CORS_ORIGINS; undefined when it is unset. */
	private readonly cors?: CorsHeaders;

	private readonly server: Server;

	private readonly open = new Set<ServerResponse>();

	private readonly broker: ServiceBroker;

	private readonly logger: Logger;

	/** The open Server Events streams; the gateway's service hands them the bus's events. */
	readonly streams: EventStreams;

	constructor(
		private readonly config: PlazaConfig,
		/** The gateway's service: the calls it makes name it as their caller (internal actions check who calls them). */
		private readonly service: Service,
		scopes: StreamScopes,
	) {
		this.broker = service.broker;
		this.logger = service.logger;
		this.streams = new EventStreams(service, scopes, config.eventStreamsPerCaller);
		this.routes = new Routes({ ...gatewayPages(config, this.broker), ...eventPages(config, () => this.streams) });
		this.identifier = new Identifier(config, new BearerTokens(this.broker, config.auth.bearerTokenTtlSeconds * 1000));
		this.budget = new RequestBudget(config, service);
		this.responses = new ResponseCache(this.broker);
		this.busBarrier = busBarrier(this.broker);
		this.cors = corsFor(config);
		this.server = http.createServer(
			(req, res) => void this.handle(req as GatewayRequest, res).catch(err => this.lastResort(res, err)),
		);
	}

	listen(port: number): Promise<Server> {
		return new Promise((resolve, reject) => {
			this.server.once("error", reject);
			this.server.listen(port, () => {
				this.server.off("error", reject);
				resolve(this.server);
			});
		});
	}

	/** Stops taking connections, lets the requests in progress finish (at most `drainMs`), then closes. */
	async close(): Promise<void> {
		const closed = new Promise<void>(resolve => this.server.close(() => resolve()));
		this.server.closeIdleConnections();
		this.streams.close();
		const deadline = Date.now() + drainMs;
		while (this.open.size > 0 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20));
		this.server.closeAllConnections();
		await closed;
		this.budget.stop();
	}

	private async handle(req: GatewayRequest, res: ServerResponse): Promise<void> {
		this.open.add(res);
		res.once("close", () => this.open.delete(res));
		setSecurityHeaders(res, isSecure(req, this.config.trustProxy));
		this.logAccess(req, res);
		req.$rawUrl = req.url;
		try {
			await this.cors?.(req, res);
			negotiateFormat(req);
			const ctx = this.contextFor(req, res);
			res.setHeader("X-Request-ID", String(ctx.requestID));
			const url = req.url ?? "/";
			const queryAt = url.indexOf("?");
			const path = queryAt < 0 ? url : url.slice(0, queryAt);
			if (req.method === "OPTIONS") return this.answerOptions(path, res);
			const found = this.routes.find(req.method ?? "GET", path);
			if (!found) throw noSuchRoute();
			const op = found.target.kind === "operation" ? found.target.operation(found.params) : undefined;
			const meta = ctx.meta as RequestMeta & { user?: Caller | null };
			meta.clientIp = clientAddress(req, this.config.trustProxy);
			meta.baseUrl = baseUrlOf(req, this.config.trustProxy);
			const refreshToken = req.headers.cookie?.includes("ss-reftok=") ? readCookies(req)["ss-reftok"] : undefined;
			if (refreshToken) (meta as SessionMeta).refreshTokenCookie = refreshToken;
			// Every cache this node reads for the request (its sessions, kept answers, its own services' hot
			// records) has handled the invalidations announced before the request was sent: a token signed out
			// through another gateway is refused here at once, not when the announcement happens to arrive.
			if (this.busBarrier) await this.busBarrier();
			// Who is calling comes first: the budget is the verified caller's (else the address's), not the credentials'.
			const identity = await this.identifier.identify(ctx, req, op?.access === "public").catch(async (err: unknown) => {
				// Wrong credentials verify no caller: the attempt spends the address's budget (a spent one answers 429).
				await this.budget.spend(res, undefined, meta.clientIp);
				throw err;
			});
			meta.user = identity?.caller ?? null;
			req.$ambient = identity?.ambient ?? false;
			await this.budget.spend(res, meta.user ?? undefined, meta.clientIp);
			await readBody(req, res, op?.maxBodyBytes ?? this.config.maxBodyBytes);
			req.$params = paramsOf(req, queryAt < 0 ? "" : url.slice(queryAt + 1), found);
			if (found.target.kind === "page")
				found.target.page(req, res, err => this.writeFailure(req, res, err ?? noSuchRoute()));
			else if (isBatch(found)) await this.dispatchBatch(op, found.target.oneWay === true, req, res);
			else if (found.target.oneWay) await this.dispatchOneWay(op, req, res);
			else await this.dispatch(op, found.target.surface, req, res);
		} catch (err) {
			this.writeFailure(req, res, err);
		}
	}

	/**
	 * The request's broker context. Its request id, on every log line and span of every service it
	 * reaches, is the trace id of a W3C `traceparent` (so a trace joins the operator's tracing, even
	 * behind a proxy that adds an X-Request-ID of its own), else a caller's X-Request-ID (or
	 * X-Correlation-ID), else a new one.
	 */
	private contextFor(req: GatewayRequest, res: ServerResponse): Context {
		const ctx = Context.create(this.broker);
		const given = req.headers["x-correlation-id"] ?? req.headers["x-request-id"];
		const trace = parseTraceparent(req.headers.traceparent);
		// Taken only when it is a plain token: it is echoed in a header and written to every log line.
		ctx.requestID = trace?.traceId ?? (typeof given === "string" && /^[\w.:-]{1,200}$/.test(given) ? given : ctx.id);
		ctx.meta = {};
		ctx.service = this.service;
		req.$ctx = ctx;
		startRequestSpan(ctx, req, res, trace);
		return ctx;
	}

	/**
	 * OPTIONS runs nothing, whatever its body: it says which methods the path answers to (with CORS headers for a listed
	 * origin).
	 */
	private answerOptions(path: string, res: ServerResponse): void {
		const methods = this.routes.methodsOf(path);
		if (methods.length === 0) throw noSuchRoute();
		res.statusCode = 204;
		res.setHeader("Allow", [...methods, "OPTIONS"].join(", "));
		res.end();
	}

	/**
	 * The operation a single call runs, refused when the route named none or the request may not run it, and the call's
	 * fields.
	 */
	private async callOf(
		found: Operation | undefined,
		req: GatewayRequest,
	): Promise<{ op: Operation; params: Record<string, unknown> }> {
		const op = operationOrNotFound(found, req);
		if (Array.isArray(req.body)) throw failures.invalidBody("The request body must be a JSON object");
		refuseCrossSiteWrite(op, req, this.config);
		const { operation: _ignored, ...params } = req.$params;
		if (/^multipart\/form-data/i.test(req.headers["content-type"] ?? ""))
			Object.assign(params, await readMultipart(req, op.maxBodyBytes ?? this.config.maxBodyBytes));
		return { op, params };
	}

	/**
	 * ServiceStack's one-way call (`/json/oneway/{Operation}`): the operation runs to its end, so that
	 * its refusals (validation, access, cross-site) still answer as they do elsewhere, and success is a
	 * 204 with no body. Plaza has no message queue to leave it in; a call cut loose from its request
	 * would lose its failures and outlive a stopping gateway's drain.
	 */
	private async dispatchOneWay(found: Operation | undefined, req: GatewayRequest, res: ServerResponse): Promise<void> {
		const { op, params } = await this.callOf(found, req);
		await performOperation(req.$ctx, req, op, "generic", params);
		this.answerNoContent(req, res);
	}

	/**
	 * Auto-batched requests (`/json/reply/{Operation}[]`): an array of answers, or with /json/oneway a 204 (see
	 * performBatch).
	 */
	private async dispatchBatch(
		found: Operation | undefined,
		oneWay: boolean,
		req: GatewayRequest,
		res: ServerResponse,
	): Promise<void> {
		const op = operationOrNotFound(found, req);
		// The cross-site rule depends only on the operation and the request, so one check holds for every request of the
		// batch.
		refuseCrossSiteWrite(op, req, this.config);
		const meta = req.$ctx.meta as RequestMeta & { user?: Caller | null };
		const answers = await performBatch(op, req, res, () =>
			this.budget.spend(res, meta.user ?? undefined, meta.clientIp),
		);
		if (oneWay) return this.answerNoContent(req, res);
		this.setSessionCookies(req, res);
		sendJsonText(req, res, 200, wireJson(answers));
	}

	/** A one-way call's answer: 204, no body (a sign-in's session cookies still go with it). */
	private answerNoContent(req: GatewayRequest, res: ServerResponse): void {
		this.setSessionCookies(req, res);
		res.statusCode = 204;
		res.end();
		recordPerformed(req.$ctx, req, 204);
	}

	/** The cookies of a session the call started (a sign-in). */
	private setSessionCookies(req: GatewayRequest, res: ServerResponse): void {
		setResponseCookies(res, req.$ctx.meta, isSecure(req, this.config.trustProxy));
	}

	private async dispatch(
		found: Operation | undefined,
		surface: Surface,
		req: GatewayRequest,
		res: ServerResponse,
	): Promise<void> {
		const { op, params } = await this.callOf(found, req);
		// Kept answers are the JSON text sent: an XML request is neither answered from them nor kept.
		// Kept answers skip the operations middleware: only a caller of the scope the action named gets one
		// (docs/architecture.md, Kept answers).
		const keepable = op.cacheResponse && req.$format !== "xml";
		const kept = keepable ? this.responses.lookup(op, callerOf(req.$ctx), params) : undefined;
		if (kept && "json" in kept) {
			// The same access rule as a fresh answer's (the operations middleware skipped here): allowed before is not taken
			// on trust.
			checkSentCall(op, callerOf(req.$ctx), params);
			req.$operation = { name: op.name, surface, startedAt: process.hrtime.bigint() };
			sendJsonText(req, res, 200, kept.json);
			return recordPerformed(req.$ctx, req, 200);
		}
		const result = await performOperation(req.$ctx, req, op, surface, params);
		setResponseCookies(res, req.$ctx.meta, isSecure(req, this.config.trustProxy));
		if (op.download && surface === "rest") sendFile(req, res, result as FileRecord);
		else if (req.$format === "xml") sendXml(res, 200, answerXml(op, result));
		else {
			const json = wireJson(writerFor(op.response)(result));
			const {
				responseScope: scope,
				responseRecords: records,
				responseExpiresAt: expiresAt,
			} = req.$ctx.meta as ResponseScopeMeta;
			if (kept && scope) {
				const bytes = Buffer.from(json);
				this.responses.keep(kept, scope, bytes, records, expiresAt);
				sendJsonText(req, res, 200, bytes);
			} else sendJsonText(req, res, 200, json);
		}
		recordPerformed(req.$ctx, req, res.statusCode);
	}

	/** One structured line per request when it ends; the path only, as a query string may carry credentials. */
	private logAccess(req: GatewayRequest, res: ServerResponse): void {
		const started = process.hrtime.bigint();
		res.once("finish", () => {
			const path = (req.$rawUrl ?? req.url ?? "").split("?")[0];
			const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
			const caller = credentialOf(req.$ctx ? callerOf(req.$ctx) : undefined);
			// Info in every format: the default log shows each request (the short line appends requestID=…).
			this.logger.info(
				{
					event: "request",
					method: req.method,
					path,
					status: res.statusCode,
					ms,
					requestID: res.getHeader("X-Request-ID"),
					operation: req.$operation?.name,
					...(caller ? { caller } : {}),
				},
				`${req.method} ${path} ${res.statusCode} ${ms} ms`,
			);
		});
	}

	/**
	 * Writing the answer itself failed: logged, and the connection closed, rather than an unhandled rejection ending the
	 * process.
	 */
	private lastResort(res: ServerResponse, err: unknown): void {
		this.logger.error({ event: "response-failed", error: err }, "Writing a response failed");
		if (!res.headersSent) res.statusCode = 500;
		res.end();
	}

	private writeFailure(req: IncomingMessage, res: ServerResponse, err: unknown): void {
		if (res.headersSent) return;
		const failure = describeFailure(err, this.config.development);
		const batchIndex = (req as Partial<GatewayRequest>).$autoBatchIndex;
		if (batchIndex !== undefined) failure.responseStatus.Meta = { AutoBatchIndex: String(batchIndex) };
		recordPerformed((req as GatewayRequest).$ctx, req, failure.status);
		// The path only: a query string may carry credentials.
		if (failure.internal) {
			const { $ctx: ctx, $rawUrl: url } = req as Partial<GatewayRequest>;
			const path = (url ?? req.url ?? "").split("?")[0];
			const caller = ctx && callerOf(ctx);
			this.logger.error(
				{
					event: "request-failed",
					method: req.method,
					path,
					status: failure.status,
					requestID: ctx?.requestID,
					caller: credentialOf(caller),
					error: err,
				},
				`${req.method} ${path} failed with ${failure.status}`,
			);
		}
		// A 429 always says when to come back; a 503 (shed load) or 409 (a key still in use) when the server knows.
		if (failure.status === 429 || failure.retryAfter !== undefined)
			res.setHeader("Retry-After", String(failure.retryAfter ?? secondsUntil(res.getHeader("X-Rate-Limit-Reset"))));
		const challenge = failure.status === 401 && this.identifier.challenge();
		if (challenge) res.setHeader("WWW-Authenticate", challenge);
		if (isSoapCall(req))
			sendSoapFailure(this.config, req as SoapRequest, res, failure).catch(err => this.lastResort(res, err));
		else sendFailure(req, res, failure.status, failure.responseStatus);
	}
}

/** Body, query and path fields in one object: the path wins, then the query, then the body. */
function paramsOf(req: GatewayRequest, query: string, found: FoundRoute): Record<string, unknown> {
	const body =
		req.body !== null && typeof req.body === "object" && !Array.isArray(req.body)
			? (req.body as Record<string, unknown>)
			: {};
	// qs stops nesting at 5 levels (the rest of a name stays text), but a name deeper than any body may be is refused as
	// a body is.
	if (query) refuseDeepFieldNames(new URLSearchParams(query).keys(), "The query string");
	// A null prototype: a body's own "__proto__" key stays a field and never becomes the object's prototype.
	return Object.assign(
		Object.create(null) as Record<string, unknown>,
		body,
		query ? qs.parse(query) : {},
		found.params,
	);
}

/** The operation the generic route named, else 404. */
function operationOrNotFound(op: Operation | undefined, req: GatewayRequest): Operation {
	if (!op) throw failures.notFound(`The operation ${String(req.$params.operation)}`);
	return op;
}

function noSuchRoute(): Error {
	return Object.assign(new Error("No such route"), { type: "NOT_FOUND" });
}

/** Seconds until the rate limiter's window resets (its header holds the time in milliseconds). */
function secondsUntil(resetAt: unknown): number {
	const ms = Number(resetAt) - Date.now();
	return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms / 1000) : 60;
}
