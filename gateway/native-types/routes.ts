import { ServerResponse } from "node:http";
import { PlazaConfig } from "../../shared/config";
import { catalogue } from "../../shared/catalogue";
import { baseUrlOf } from "../base-url";
import { PageHandler, GatewayRequest } from "../request";
import { sendJson } from "../respond";
import { apiVersion } from "../description/swagger";
import { metadataTypes, MetadataTypes } from "./model";
import { referenceOptions, ReferenceOptions, selectTypes } from "./options";
import { typeScriptDtos } from "./typescript";
import { cSharpDtos } from "./csharp";

const languages: Record<string, (model: MetadataTypes, options: ReferenceOptions) => string> = {
	typescript: typeScriptDtos,
	csharp: cSharpDtos,
};

/**
 * "Add ServiceStack Reference" (ServiceStack's NativeTypes), public like the rest of the description:
 * DTOs at /types/typescript and /types/csharp, the model they are made from at /types/metadata, and
 * the list of them at /types. Options come in the query string, as the CLI sends them.
 */
export function nativeTypesAliases(config: PlazaConfig): Record<string, PageHandler> {
	const modelFor = (req: GatewayRequest) => {
		const query = new URL(req.url ?? "/", "http://plaza").searchParams;
		const options = referenceOptions(query);
		return {
			model: selectTypes(metadataTypes(catalogue, baseUrlOf(req, config.trustProxy), apiVersion), options),
			options,
		};
	};
	const aliases: Record<string, PageHandler> = {
		"GET /types"(req, res) {
			const base = baseUrlOf(req, config.trustProxy);
			sendJson(req, res, 200, {
				Metadata: `${base}/types/metadata`,
				Csharp: `${base}/types/csharp`,
				TypeScript: `${base}/types/typescript`,
			});
		},
		// The gateway takes a ".json" suffix off every path, so this is /types/metadata.json as well.
		"GET /types/metadata"(req, res) {
			sendJson(req, res, 200, modelFor(req).model);
		},
	};
	for (const [language, render] of Object.entries(languages)) {
		aliases[`GET /types/${language}`] = (req, res) => {
			const { model, options } = modelFor(req);
			sendText(res, render(model, options));
		};
	}
	return aliases;
}

function sendText(res: ServerResponse, text: string): void {
	res.statusCode = 200;
	res.setHeader("Content-Type", "text/plain; charset=utf-8");
	res.end(text);
}
