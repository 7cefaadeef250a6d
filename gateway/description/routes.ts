import { ServerResponse } from "node:http";
import { catalogue } from "../../shared/catalogue";
import { PageHandler } from "../request";
import { FormatRequest, sendJson } from "../respond";
import { openApiDocument } from "./openapi";
import { apiPageAliases } from "./api-page";
import { metadataAliases } from "./metadata";

type Request = FormatRequest & { $params?: Record<string, unknown> };
type AliasHandler = (req: Request, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * The API description's documents (PRODUCT.md §6), public: the OpenAPI 3 document at GET /openapi.json,
 * the API page at /swagger-ui/ and the metadata pages at /metadata. (The Swagger 1.x records are
 * catalogue operations: Resources, ResourceRequest.)
 */
export function descriptionAliases(): Record<string, AliasHandler | PageHandler> {
	const aliases: Record<string, AliasHandler> = {};
	let openApi: unknown;
	// The gateway takes a ".json" suffix off every path, so this is /openapi.json as well.
	aliases["GET /openapi"] = (req, res) => {
		openApi ??= openApiDocument(catalogue);
		sendJson(req, res, 200, openApi);
	};
	return { ...aliases, ...apiPageAliases(), ...metadataAliases() };
}
