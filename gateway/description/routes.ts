import { ServerResponse } from "node:http";
import { PlazaConfig } from "../../shared/config";
import { FormatRequest, sendJson } from "../respond";
import { baseUrlOf } from "../base-url";
import { answerDescription, describedOperations, descriptionOperations } from "./operations";
import { openApiDocument } from "./openapi";
import { apiPageAliases } from "./api-page";

type Request = FormatRequest & { $params?: Record<string, unknown> };
type AliasHandler = (req: Request, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * The API description (PRODUCT.md §6), public: the Swagger 1.x records at GET /resources and
 * GET /resource/{Name}, the OpenAPI 3 document at GET /openapi.json, and the API page at /swagger-ui/.
 */
export function descriptionAliases(config: PlazaConfig): Record<string, AliasHandler> {
	const aliases: Record<string, AliasHandler> = {};
	for (const op of descriptionOperations) {
		for (const r of op.routes) {
			aliases[`${r.method} ${r.path}`] = (req, res, next) => {
				try {
					sendJson(req, res, 200, answerDescription(op, req.$params ?? {}, { basePath: baseUrlOf(req, config.trustProxy), adminApiKey: config.adminApiKey }));
				} catch (err) {
					next(err);
				}
			};
		}
	}
	let openApi: unknown;
	// The gateway takes a ".json" suffix off every path, so this is /openapi.json as well.
	aliases["GET /openapi"] = (req, res) => {
		openApi ??= openApiDocument(describedOperations);
		sendJson(req, res, 200, openApi);
	};
	return { ...aliases, ...apiPageAliases() };
}
