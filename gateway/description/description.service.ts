import { ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { catalogue, descriptionOperations } from "../../shared/catalogue";
import { typedService } from "../../shared/implement";
import { failures } from "../../shared/errors";
import { sameSecret } from "../identify";
import { resourceDescription, resourceListing } from "./swagger";

const { implement, define } = typedService();

/**
 * The API description as operations of the catalogue (Resources, ResourceRequest), so that they are
 * reachable like every other: REST, the generic route and SOAP. It runs beside the gateway.
 */
export function descriptionService(config: PlazaConfig): ServiceSchema {
	const checkKey = (apiKey: string | undefined) => {
		if (apiKey && !(config.adminApiKey && sameSecret(apiKey, config.adminApiKey)))
			throw failures.unauthorized("The apiKey is not valid");
	};
	return define({
		name: "description",
		actions: {
			...implement(descriptionOperations.Resources, async ctx => {
				checkKey(ctx.params.apiKey);
				return resourceListing(catalogue, ctx.meta.baseUrl ?? "");
			}),
			...implement(descriptionOperations.ResourceRequest, async ctx => {
				checkKey(ctx.params.apiKey);
				return resourceDescription(catalogue, ctx.params.name, ctx.meta.baseUrl ?? "");
			}),
		},
	});
}
