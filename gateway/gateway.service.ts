import { IncomingMessage, ServerResponse } from "node:http";
import { Context, ServiceSchema, Service } from "moleculer";
import ApiGateway, { ApiSettingsSchema, IncomingRequest } from "moleculer-web";
import { PlazaConfig } from "../shared/config";
import { Operation } from "../shared/catalogue";
import { writerFor } from "../shared/wire/write";
import { failures } from "../shared/errors";
import { catalogueAliases, operationListing } from "./routes";
import { negotiateFormat } from "./format";
import { FormatRequest, sendJson } from "./respond";
import { describeFailure } from "./errors";
import { identify } from "./identify";

type Request = IncomingRequest & FormatRequest & { body?: unknown };

interface GatewayMethods {
	dispatch(op: Operation | undefined, req: Request, res: ServerResponse): Promise<void>;
	writeFailure(req: IncomingMessage, res: ServerResponse, err: unknown): void;
}

type GatewayThis = Service & GatewayMethods;

/**
 * The HTTP face of Plaza, made from the operation catalogue: REST routes, the generic reply route,
 * one error shape. It knows protocols, not domains: no operation is named here.
 */
export function gatewayService(config: PlazaConfig): ServiceSchema {
	const httpHandler = (ApiGateway.methods as Record<string, (this: Service, ...args: unknown[]) => unknown>).httpHandler;

	const schema: ServiceSchema<ApiSettingsSchema> = {
		name: "gateway",
		mixins: [ApiGateway],
		settings: {
			port: config.port,
			logRequest: "debug",
			logResponse: "debug",
			log4XXResponses: false,
			routes: [
				{
					path: "/",
					mappingPolicy: "restrict",
					autoAliases: false,
					authentication: true,
					bodyParsers: {
						json: { strict: true, limit: config.maxBodyBytes },
						urlencoded: { extended: false, limit: config.maxBodyBytes },
					},
					aliases: {
						"GET /health"(req: Request, res: ServerResponse) {
							sendJson(req, res, 200, { Status: "Up" });
						},
						"GET /operations"(req: Request, res: ServerResponse) {
							sendJson(req, res, 200, operationListing());
						},
						...catalogueAliases(function (this: unknown, op, req, res) {
							void (this as GatewayThis).dispatch(op, req as Request, res);
						}),
					},
				},
			],
			// moleculer-web hands every failure (routing, body parsing, actions) to this one writer.
			onError(this: GatewayThis, req: IncomingMessage, res: ServerResponse, err: unknown) {
				this.writeFailure(req, res, err);
			},
		},

		methods: {
			/** Format negotiation happens before routing, so `/Users.json` finds `/Users`. */
			httpHandler(this: GatewayThis, req: Request, res: ServerResponse, next?: unknown) {
				try {
					negotiateFormat(req);
				} catch (err) {
					return this.writeFailure(req, res, err);
				}
				return httpHandler.call(this, req, res, next);
			},

			authenticate(_ctx: Context, _route: unknown, req: IncomingMessage) {
				return identify(req, config.adminApiKey) ?? null;
			},

			async dispatch(this: GatewayThis, op: Operation | undefined, req: Request, res: ServerResponse) {
				try {
					if (!op) throw failures.notFound(`The operation ${String(req.$params?.operation)}`);
					if (Array.isArray(req.body)) throw failures.invalidBody("The request body must be a JSON object");
					const { operation: _ignored, ...params } = (req.$params ?? {}) as Record<string, unknown>;
					const result = await req.$ctx.call(op.action, params);
					sendJson(req, res, 200, writerFor(op.response)(result));
				} catch (err) {
					this.writeFailure(req, res, err);
				}
			},

			writeFailure(this: GatewayThis, req: IncomingMessage, res: ServerResponse, err: unknown) {
				const failure = describeFailure(err, config.development);
				if (failure.internal) this.logger.error(`${req.method} ${req.url} failed:`, err);
				if (failure.status === 429) res.setHeader("Retry-After", "60");
				sendJson(req as Request, res, failure.status, { ResponseStatus: failure.responseStatus });
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
