import { catalogue, route } from "../../shared/catalogue";
import { w } from "../../shared/wire/schema";
import { binderFor } from "../../shared/wire/bind";
import { validateRequest } from "../../shared/wire/validate";
import { failures } from "../../shared/errors";
import { DescribedOperation } from "./endpoints";
import { ResourceResponse, ResourcesResponse } from "./records";
import { resourceDescription, resourceListing } from "./swagger";
import { sameSecret } from "../identify";

/** What answering a description request needs to know of the request and the configuration. */
export interface DescriptionContext {
	/** The base URL the caller reached Plaza at. */
	basePath: string;
	adminApiKey?: string;
}

/** An operation the gateway answers itself: the API description (SPEC.md §4.4), public (PRODUCT.md §3). */
export interface DescriptionOperation extends DescribedOperation {
	answer(params: Record<string, unknown>, context: DescriptionContext): unknown;
}

const apiKey = w.string().max(500).allow("");

export const descriptionOperations: readonly DescriptionOperation[] = [
	{
		name: "Resources",
		summary: "The API's resources (Swagger 1.2 resource listing)",
		routes: [route("GET /resources")],
		request: w.object({ apiKey }),
		response: ResourcesResponse,
		access: "public",
		answer: (_params, context) => resourceListing(describedOperations, context.basePath),
	},
	{
		name: "ResourceRequest",
		summary: "One resource's paths, operations, parameters and models (Swagger 1.2 API declaration)",
		routes: [route("GET /resource/:name")],
		request: w.object({ apiKey, name: w.string().max(200).required() }),
		response: ResourceResponse,
		access: "public",
		answer: (params, context) => resourceDescription(describedOperations, String(params.name), context.basePath),
	},
];

/** Every operation the descriptions list: the catalogue's, then the description's own. */
export const describedOperations: readonly DescribedOperation[] = [...catalogue, ...descriptionOperations];

/**
 * Binds and validates a description request as the broker middleware does a catalogue one, then
 * answers it. An apiKey, when given, must be the administrator's (401 otherwise, so that a wrong
 * key is never silently taken); the description is public, so it is the same for every caller.
 */
export function answerDescription(op: DescriptionOperation, input: Record<string, unknown>, context: DescriptionContext): unknown {
	const params = validateRequest(op.request, binderFor(op.request)(input)) as Record<string, unknown>;
	const key = typeof params.apiKey === "string" ? params.apiKey : "";
	if (key && !(context.adminApiKey && sameSecret(key, context.adminApiKey))) throw failures.unauthorized("The apiKey is not valid");
	return op.answer(params, context);
}

/** The description operation of that name, whatever its case. */
export function descriptionOperationNamed(name: string): DescriptionOperation | undefined {
	return descriptionOperations.find(op => op.name.toLowerCase() === name.toLowerCase());
}

