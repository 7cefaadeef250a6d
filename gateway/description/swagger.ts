import { failures } from "../../shared/errors";
import { accessNote, DescribedOperation, Endpoint, endpointsOf, errorStatuses } from "./endpoints";
import { Field, recordsWithin, RecordShape, requestShape, Shape, shapeOf } from "./shapes";
import { fieldNote } from "./wire-notes";

/** SPEC.md §9: the description's versions. Routes carry no version; this one moves with breaking changes. */
export const apiVersion = "1.0";
export const swaggerVersion = "1.2";

type Json = Record<string, unknown>;

/** ResourcesResponse: one resource per first path segment of the operations' routes. */
export function resourceListing(ops: readonly DescribedOperation[], basePath: string): Json {
	const apis = [...groups(ops)].map(([name, endpoints]) => ({
		description: [...new Set(endpoints.map(e => e.op.name))].join(", "),
		path: `/resource/${name}`,
	}));
	return { apiVersion, apis, basePath, swaggerVersion };
}

/** ResourceResponse of one resource (its name in any case): its paths, their operations, and the models they use. */
export function resourceDescription(ops: readonly DescribedOperation[], name: string, basePath: string): Json {
	const found = [...groups(ops)].find(([resource]) => resource.toLowerCase() === name.toLowerCase());
	if (!found) throw failures.notFound(`The resource ${name}`);
	const [resource, endpoints] = found;
	const byPath = new Map<string, Endpoint[]>();
	for (const e of endpoints) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
	const apis = [...byPath].map(([path, es]) => ({
		description: es.map(e => e.op.summary).join("; "),
		operations: es.map(methodOperation),
		path,
	}));
	const models: Json = {};
	for (const op of new Set(endpoints.map(e => e.op))) {
		for (const shape of [requestShape(op), shapeOf(op.response, `${op.name}Response`)]) {
			for (const r of recordsWithin(shape).values()) models[r.name] ??= swaggerModel(r);
		}
	}
	return { apiVersion, apis, basePath, models, resourcePath: `/${resource}` };
}

function groups(ops: readonly DescribedOperation[]): Map<string, Endpoint[]> {
	const found = new Map<string, Endpoint[]>();
	for (const e of ops.flatMap(endpointsOf)) found.set(e.resource, [...(found.get(e.resource) ?? []), e]);
	return found;
}

function methodOperation(e: Endpoint): Json {
	const request = requestShape(e.op);
	const inPath = (f: Field) => e.pathFields.includes(f.name);
	const parameters = request.fields.filter(inPath).map(f => parameter(f, "path", true));
	const rest = request.fields.filter(f => !inPath(f));
	if (e.method === "GET" || e.method === "DELETE") parameters.push(...rest.map(f => parameter(f, "query", f.required)));
	else if (rest.length) {
		parameters.push({
			allowMultiple: false,
			dataType: e.op.name,
			description: `The ${e.op.name} request (JSON)`,
			name: "body",
			paramType: "body",
			required: rest.some(f => f.required),
		});
	}
	return {
		errorResponses: errorStatuses(e.op),
		httpMethod: e.method,
		nickname: e.op.name,
		notes: accessNote(e.op),
		parameters,
		responseClass: typeName(shapeOf(e.op.response, `${e.op.name}Response`)),
		summary: e.op.summary,
	};
}

function parameter(f: Field, paramType: string, required: boolean): Json {
	return withoutUndefined({
		allowMultiple: f.shape.kind === "list",
		allowableValues: allowableValues(f),
		dataType: typeName(f.shape.kind === "list" ? f.shape.item : f.shape),
		description: fieldNote(f),
		name: f.name,
		paramType,
		required,
	});
}

function swaggerModel(r: RecordShape): Json {
	const properties: Json = {};
	for (const f of r.fields) {
		properties[f.name] = withoutUndefined({
			allowableValues: allowableValues(f),
			description: fieldNote(f),
			items: itemsOf(f.shape),
			required: f.required,
			type: f.shape.kind === "list" ? "List" : f.shape.kind === "dictionary" ? "Dictionary" : typeName(f.shape),
		});
	}
	return { id: r.name, properties };
}

/** ServiceStack's Swagger 1.x type names: string, int, double, boolean, Date, List[X], record names. */
function typeName(shape: Shape): string {
	switch (shape.kind) {
		case "record":
			return shape.name;
		case "list":
			return `List[${typeName(shape.item)}]`;
		case "dictionary":
			return `Dictionary[string,${typeName(shape.value)}]`;
		case "integer":
			return "int";
		case "number":
			return "double";
		case "timestamp":
			return "Date";
		case "boolean":
			return "boolean";
		default:
			return "string";
	}
}

function itemsOf(shape: Shape): Record<string, string> | undefined {
	const item = shape.kind === "list" ? shape.item : shape.kind === "dictionary" ? shape.value : undefined;
	if (!item) return undefined;
	return item.kind === "record" ? { $ref: item.name } : { type: typeName(item) };
}

function allowableValues(f: Field): Json | undefined {
	if (f.values) return { valueType: "LIST", values: f.values.map(String) };
	if ((f.shape.kind === "integer" || f.shape.kind === "number") && (f.min !== undefined || f.max !== undefined))
		return withoutUndefined({ max: f.max, min: f.min, valueType: "RANGE" });
	return undefined;
}

function withoutUndefined(o: Json): Json {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
