import { operations, route } from "./operation";
import { w } from "../wire/schema";
import { ResourceResponse, ResourcesResponse } from "../records/description";

/** An apiKey, when given, must be the administrator's key (401 otherwise); the description is the same for all. */
const apiKey = w.string().max(500).allow("");

/** The API description (SPEC.md §4.4, §2.13): ServiceStack's Swagger 1.x records, public (PRODUCT.md §3). */
export const descriptionOperations = operations({
	Resources: {
		summary: "The API's resources (Swagger 1.2 resource listing)",
		action: "description.resources",
		routes: [route("GET /resources")],
		request: w.object({ apiKey }),
		response: ResourcesResponse,
		access: "public",
		reads: true,
	},
	ResourceRequest: {
		summary: "One resource's paths, operations, parameters and models (Swagger 1.2 API declaration)",
		action: "description.resource",
		routes: [route("GET /resource/:name")],
		request: w.object({ apiKey, name: w.string().max(200).required() }),
		response: ResourceResponse,
		access: "public",
		reads: true,
	},
});
