import { Access } from "../../shared/catalogue";
import { ResponseStatus } from "../../shared/records/common";
import { accessNote, DescribedOperation, Endpoint, endpointsOf, errorStatuses } from "./endpoints";
import { Field, recordsWithin, RecordShape, requestShape, Shape, shapeOf } from "./shapes";
import { apiVersion } from "./swagger";
import { fieldNote, wireNote } from "./wire-notes";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const securitySchemes = {
	sessionCookie: {
		type: "apiKey",
		in: "cookie",
		name: "ss-id",
		description: "The session Auth or Registration (AutoLogin) opened; ss-pid with ss-opt=perm for RememberMe",
	},
	sessionHeader: {
		type: "apiKey",
		in: "header",
		name: "X-ss-id",
		description: "The SessionId of Auth or Registration (AutoLogin)",
	},
	basic: {
		type: "http",
		scheme: "basic",
		description: "UserName (or e-mail) and Password; or an API key as the user name, with no password",
	},
	bearer: {
		type: "http",
		scheme: "bearer",
		description:
			"A BearerToken (JWT, RS256; keys at /.well-known/jwks.json) from Auth or GetAccessToken, an API key (ak-…), " +
			"or the administrator's key (ADMIN_API_KEY)",
	},
	apiKey: { type: "apiKey", in: "header", name: "X-Api-Key", description: "An API key (ak-…) from CreateUserApiKey" },
	tokenCookie: {
		type: "apiKey",
		in: "cookie",
		name: "ss-tok",
		description: "The bearer token, when Auth was asked UseTokenCookie",
	},
};

const anyCaller = [
	{ sessionCookie: [] },
	{ sessionHeader: [] },
	{ basic: [] },
	{ bearer: [] },
	{ apiKey: [] },
	{ tokenCookie: [] },
];
const security: Record<Access, Json[]> = { public: [{}, ...anyCaller], user: anyCaller, admin: anyCaller };

/** The OpenAPI 3 document of the JSON API, made from the operations' declarations. */
export function openApiDocument(ops: readonly DescribedOperation[]): Json {
	const schemas: Json = {};
	const paths: Record<string, Json> = {};
	const tags = new Map<string, string[]>();
	const addRecords = (shape: Shape) => {
		for (const r of recordsWithin(shape).values()) schemas[r.name] ??= recordSchema(r);
	};
	addRecords(shapeOf(ResponseStatus, "ResponseStatus"));
	schemas.ErrorResponse = {
		type: "object",
		properties: { ResponseStatus: ref("ResponseStatus") },
		description: "The body of every failure (PRODUCT.md §2)",
	};

	const templates = new PathTemplates();
	for (const op of ops) {
		const request = requestShape(op);
		schemas[op.name] = recordSchema(request);
		addRecords(request);
		addRecords(shapeOf(op.response, `${op.name}Response`));
		endpointsOf(op).forEach((e, i) => {
			tags.set(e.resource, [...(tags.get(e.resource) ?? []), op.name]);
			const template = templates.of(e);
			paths[template.path] ??= {};
			paths[template.path][e.method.toLowerCase()] = operation(
				e,
				template.names,
				i === 0 ? op.name : `${op.name}_${i + 1}`,
			);
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
				'Failures carry `{"ResponseStatus": {"ErrorCode", "Message", "Errors": [...]}}`.',
				"Every operation's fields, routes and example requests in JSON, XML and SOAP 1.1 are also on [the metadata pages](/metadata).",
			].join("\n\n"),
		},
		servers: [{ url: "/" }],
		tags: [...tags].map(([name, names]) => ({
			name,
			description: `Operations under /${name}: ${[...new Set(names)].join(", ")}`,
		})),
		paths,
		components: {
			schemas: usedOnly(schemas, paths),
			securitySchemes,
		},
	};
}

/**
 * One path template per URL shape: routes that differ only by their fields' names (`/Posts/:PostId/Recipients`,
 * `/Posts/:Id/Recipients`) are the same URL, so OpenAPI wants them as one path; the first one's names are kept.
 */
class PathTemplates {
	private readonly seen = new Map<string, { path: string; names: string[] }>();

	of(e: Endpoint): { path: string; names: string[] } {
		const shape = e.path.replace(/\{\w+\}/g, "{}").toLowerCase();
		let template = this.seen.get(shape);
		if (!template) {
			template = { path: e.path, names: e.pathFields };
			this.seen.set(shape, template);
		}
		return template;
	}
}

/** The schemas the paths reach, directly or through other schemas: a request sent as query parameters needs none. */
function usedOnly(schemas: Json, paths: Json): Json {
	const used = new Set<string>();
	const visit = (value: unknown) => {
		for (const match of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
			if (used.has(match[1])) continue;
			used.add(match[1]);
			visit(schemas[match[1]]);
		}
	};
	visit(paths);
	return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/** An endpoint's operation; `pathNames` are the path template's names of its path fields, in order. */
function operation(e: Endpoint, pathNames: string[], operationId: string): Json {
	const request = requestShape(e.op);
	const inPath = (f: Field) => e.pathFields.includes(f.name);
	const parameters: Json[] = e.pathFields.map((name, i) => {
		const f = request.fields.find(field => field.name === name);
		const note = pathNames[i] === name ? undefined : `The request's ${name}`;
		return {
			name: pathNames[i] ?? name,
			in: "path",
			required: true,
			schema: f ? parameterSchema(f) : { type: "string" },
			description: [note, f && fieldNote(f)].filter(Boolean).join(". ") || undefined,
		};
	});
	const rest = request.fields.filter(f => !inPath(f));
	const result: Json = {
		operationId,
		tags: [e.resource],
		summary: e.op.summary,
		description: accessNote(e.op),
		parameters,
		security: security[e.op.access],
	};
	// A write runs once per Idempotency-Key (gateway/perform.ts, shared/idempotency.ts).
	if (!e.op.reads)
		parameters.push({
			name: "Idempotency-Key",
			in: "header",
			required: false,
			schema: { type: "string", maxLength: 255 },
			description:
				"A unique value (e.g. a UUID) per intended change: a retry with the same key and request gets the first answer again (422 for another request, 409 while the first runs)",
		});

	if (e.method === "GET" || e.method === "DELETE") {
		parameters.push(
			...rest.map(f => ({
				name: f.name,
				in: "query",
				required: f.required,
				schema: parameterSchema(f),
				description: fieldNote(f),
				style: "form",
				explode: false,
			})),
		);
	} else if (rest.length) {
		const schema = rest.length === request.fields.length ? ref(e.op.name) : recordSchema({ ...request, fields: rest });
		result.requestBody = {
			required: rest.some(f => f.required),
			content: { "application/json": { schema }, "application/x-www-form-urlencoded": { schema } },
		};
	}

	const responses: Json = {
		200: {
			description: "Success",
			content: { "application/json": { schema: shapeSchema(shapeOf(e.op.response, `${e.op.name}Response`)) } },
		},
	};
	for (const status of errorStatuses(e.op))
		responses[status.code] = {
			description: status.reason,
			content: { "application/json": { schema: ref("ErrorResponse") } },
		};
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

/**
 * A field of a record. Its server default is in its description, not a `default` keyword: generators
 * (openapi-typescript) make a property with a default required, which a client may leave out.
 */
function fieldSchema(f: Field): Json {
	const schema = shapeSchema(f.shape);
	if ("$ref" in schema) return schema;
	const lengthy = f.shape.kind === "string" || f.shape.kind === "guid";
	const extra: Json = {
		description: fieldNote(f),
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

/** A query or path parameter's schema: a parameter's optionality is its own `required`, so the default may show. */
function parameterSchema(f: Field): Json {
	const schema = fieldSchema(f);
	return f.default === undefined || "$ref" in schema ? schema : { ...schema, default: f.default };
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
			return {
				type: "string",
				format: "guid",
				example: "0f8fad5bd9cb469fa16570867728950e",
				description: wireNote(shape),
			};
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
