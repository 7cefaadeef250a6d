import { record, w } from "../wire/schema";

/** The description records of SPEC.md §2.13 (ServiceStack's Swagger 1.x feature), in its field order. */

export const ParameterAllowableValues = record("ParameterAllowableValues", {
	max: w.number().integer(),
	min: w.number().integer(),
	valueType: w.string(),
	values: w.list(w.string()),
});

export const ErrorResponseStatus = record("ErrorResponseStatus", {
	code: w.number().integer(),
	reason: w.string(),
});

export const MethodOperationParameter = record("MethodOperationParameter", {
	allowMultiple: w.boolean(),
	allowableValues: ParameterAllowableValues,
	dataType: w.string(),
	description: w.string(),
	name: w.string(),
	paramType: w.string(),
	required: w.boolean(),
});

export const MethodOperation = record("MethodOperation", {
	errorResponses: w.list(ErrorResponseStatus),
	httpMethod: w.string(),
	nickname: w.string(),
	notes: w.string(),
	parameters: w.list(MethodOperationParameter),
	responseClass: w.string(),
	summary: w.string(),
});

export const MethodDescription = record("MethodDescription", {
	description: w.string(),
	operations: w.list(MethodOperation),
	path: w.string(),
});

export const ModelProperty = record("ModelProperty", {
	allowableValues: ParameterAllowableValues,
	description: w.string(),
	items: w.object().pattern(w.string(), w.string()),
	required: w.boolean(),
	type: w.string(),
});

export const SwaggerModel = record("SwaggerModel", {
	id: w.string(),
	properties: w.object().pattern(w.string(), ModelProperty),
});

export const ResourceResponse = record("ResourceResponse", {
	apiVersion: w.string(),
	apis: w.list(MethodDescription),
	basePath: w.string(),
	models: w.object().pattern(w.string(), SwaggerModel),
	resourcePath: w.string(),
});

export const RestService = record("RestService", {
	description: w.string(),
	path: w.string(),
});

export const ResourcesResponse = record("ResourcesResponse", {
	apiVersion: w.string(),
	apis: w.list(RestService),
	basePath: w.string(),
	swaggerVersion: w.string(),
});
