import { Access } from "../../shared/catalogue";
import { ResponseStatus } from "../../shared/records/common";
import { accessNote, DescribedOperation, Endpoint, endpointsOf, errorStatuses } from "./endpoints";
import { Field, recordsWithin, RecordShape, requestShape, Shape, shapeOf } from "./shapes";
import { apiVersion } from "./swagger";
import { fieldNote, wireNote } from "./wire-notes";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const securitySchemes = {
	sessionCookie: { type: "apiKey", in: "cookie", name: "ss-id", description: "The session Auth or Registration (AutoLogin) opened; ss-pid with ss-opt=perm for RememberMe" },
	sessionHeader: { type: "apiKey", in: "header", name: "X-ss-id", description: "The SessionId of Auth or Registration (AutoLogin)" },
	basic: { type: "http", scheme: "basic", description: "UserName (or e-mail) and Password" },
	bearer: { type: "http", scheme: "bearer", description: "The administrator's API key (ADMIN_API_KEY)" },
};

const anyCaller = [{ sessionCookie: [] }, { sessionHeader: [] }, { basic: [] }, { bearer: [] }];
const security: Record<Access, Json[]> = { public: [{}, ...anyCaller], user: anyCaller, admin: [{ bearer: [] }] };

/** The OpenAPI 3 document of the JSON API, made from the operations' declarations. */
export function openApiDocument(ops: readonly DescribedOperation[]): Json {
	const schemas: Json = {};
	const paths: Record<string, Json> = {};
	const tags = new Set<string>();
	const addRecords = (shape: Shape) => {
		for (const r of recordsWithin(shape).values()) schemas[r.name] ??= recordSchema(r);
	};
	addRecords(shapeOf(ResponseStatus, "ResponseStatus"));
	schemas.ErrorResponse = { type: "object", properties: { ResponseStatus: ref("ResponseStatus") }, description: "The body of every failure (PRODUCT.md §2)" };

	for (const op of ops) {
		const request = requestShape(op);
		schemas[op.name] = recordSchema(request);
		addRecords(request);
		addRecords(shapeOf(op.response, `${op.name}Response`));
		endpointsOf(op).forEach((e, i) => {
			tags.add(e.resource);
			paths[e.path] ??= {};
			paths[e.path][e.method.toLowerCase()] = operation(e, i === 0 ? op.name : `${op.name}_${i + 1}`);
		});
	}

	return {
		openapi: "3.0.3",
		info: {
			title: "Plaza",
			version: apiVersion,
			description: [
				"A social-networking web service with ServiceStack's interface.",
				"Every operation is also reachable as `POST /json/reply/{Operation}` (alias `/api/{Operation}`) with all its fields in a JSON body, and by SOAP 1.1 at `/soap11` (WSDL: `GET /soap11?wsdl`).",
				"Failures carry `{\"ResponseStatus\": {\"ErrorCode\", \"Message\", \"Errors\": [...]}}`.",
			].join("\n\n"),
		},
		servers: [{ url: "/" }],
		tags: [...tags].map(name => ({ name })),
		paths,
		components: {
			schemas,
			securitySchemes,
		},
	};
}

function operation(e: Endpoint, operationId: string): Json {
	const request = requestShape(e.op);
	const inPath = (f: Field) => e.pathFields.includes(f.name);
	const parameters: Json[] = request.fields.filter(inPath).map(f => ({ name: f.name, in: "path", required: true, schema: fieldSchema(f), description: fieldNote(f) }));
	const rest = request.fields.filter(f => !inPath(f));
	const result: Json = { operationId, tags: [e.resource], summary: e.op.summary, description: accessNote(e.op), parameters, security: security[e.op.access] };

	if (e.method === "GET" || e.method === "DELETE") {
		parameters.push(...rest.map(f => ({ name: f.name, in: "query", required: f.required, schema: fieldSchema(f), description: fieldNote(f), style: "form", explode: false })));
	} else if (rest.length) {
		const schema = rest.length === request.fields.length ? ref(e.op.name) : recordSchema({ ...request, fields: rest });
		result.requestBody = { required: rest.some(f => f.required), content: { "application/json": { schema }, "application/x-www-form-urlencoded": { schema } } };
	}

	const responses: Json = { 200: { description: "Success", content: { "application/json": { schema: shapeSchema(shapeOf(e.op.response, `${e.op.name}Response`)) } } } };
	for (const status of errorStatuses(e.op)) responses[status.code] = { description: status.reason, content: { "application/json": { schema: ref("ErrorResponse") } } };
	result.responses = responses;
	return result;
}

function recordSchema(r: RecordShape): Json {
	const required = r.fields.filter(f => f.required).map(f => f.name);
	return {
		type: "object",
		properties: Object.fromEntries(r.fields.map(f => [f.name, fieldSchema(f)])),
		...(required.length ? { required } : {}),
	};
}

function fieldSchema(f: Field): Json {
	const schema = shapeSchema(f.shape);
	if ("$ref" in schema) return schema;
	const lengthy = f.shape.kind === "string" || f.shape.kind === "guid";
	const extra: Json = {
		description: fieldNote(f),
		default: f.default,
		enum: f.values,
		minimum: !lengthy && f.shape.kind !== "list" ? f.min : undefined,
		maximum: !lengthy && f.shape.kind !== "list" ? f.max : undefined,
		minLength: lengthy ? f.min : undefined,
		maxLength: lengthy ? f.max : undefined,
		minItems: f.shape.kind === "list" ? f.min : undefined,
		maxItems: f.shape.kind === "list" ? f.max : undefined,
		format: f.format ?? schema.format,
		pattern: f.pattern,
	};
	for (const [key, value] of Object.entries(extra)) if (value !== undefined) schema[key] = value;
	return schema;
}

function shapeSchema(shape: Shape): Json {
	switch (shape.kind) {
		case "record":
			return ref(shape.name);
		case "list":
			return { type: "array", items: shapeSchema(shape.item) };
		case "dictionary":
			return { type: "object", additionalProperties: shapeSchema(shape.value) };
		case "guid":
			return { type: "string", format: "guid", example: "0f8fad5bd9cb469fa16570867728950e", description: wireNote(shape) };
		case "timestamp":
			return { type: "string", example: "/Date(1732269600000+0000)/", description: wireNote(shape) };
		case "integer":
			return { type: "integer", format: "int32" };
		case "number":
			return { type: "number", format: "double" };
		case "boolean":
			return { type: "boolean" };
		case "string":
			return { type: "string" };
		default:
			return {};
	}
}
