import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { catalogue } from "../../shared/catalogue";
import { failures } from "../../shared/errors";
import { RequestMeta } from "../../shared/caller";
import { sameSecret } from "../identify";
import { resourceDescription, resourceListing } from "./swagger";

/**
 * The API description as operations of the catalogue (Resources, ResourceRequest), so that they are
 * reachable like every other: REST, the generic route and SOAP. It runs beside the gateway.
 */
export function descriptionService(config: PlazaConfig): ServiceSchema {
	const checkKey = (apiKey: string | undefined) => {
		if (apiKey && !(config.adminApiKey && sameSecret(apiKey, config.adminApiKey))) throw failures.unauthorized("The apiKey is not valid");
	};
	return {
		name: "description",
		actions: {
			resources(ctx: Context<{ apiKey?: string }, RequestMeta>) {
				checkKey(ctx.params.apiKey);
				return resourceListing(catalogue, ctx.meta.baseUrl ?? "");
			},
			resource(ctx: Context<{ apiKey?: string; name: string }, RequestMeta>) {
				checkKey(ctx.params.apiKey);
				return resourceDescription(catalogue, ctx.params.name, ctx.meta.baseUrl ?? "");
			},
		},
	};
}
