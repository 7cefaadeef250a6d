import Joi from "joi";

/**
 * What a joi schema of the catalogue says about a value, in the terms every description needs
 * (WSDL, Swagger 1.x, OpenAPI) and the SOAP reader and writer follow. Read from `describe()`, so the
 * wire's own types (guid, timestamp, list) and record names (`record()`) come through.
 */
export type Shape = ScalarShape | RecordShape | ListShape | DictionaryShape;

export interface ScalarShape {
	kind: "string" | "guid" | "timestamp" | "integer" | "number" | "boolean" | "any";
}

export interface RecordShape {
	kind: "record";
	name: string;
	fields: Field[];
}

export interface ListShape {
	kind: "list";
	item: Shape;
}

/** An object of any keys whose values share one shape (a Dictionary<string, T> in ServiceStack). */
export interface DictionaryShape {
	kind: "dictionary";
	value: Shape;
}

export interface Field {
	name: string;
	shape: Shape;
	required: boolean;
	description?: string;
	default?: unknown;
	/** The only values allowed, when the schema lists them. */
	values?: unknown[];
	/** Bounds: of the value for numbers, of the length for strings and lists. */
	min?: number;
	max?: number;
	format?: "email" | "uri";
	pattern?: string;
}

/** The parts of joi's `describe()` output read here. */
interface Described {
	type: string;
	flags?: { presence?: string; default?: unknown; only?: boolean; description?: string };
	rules?: Array<{ name: string; args?: { limit?: unknown; regex?: string } }>;
	keys?: Record<string, Described>;
	items?: Described[];
	patterns?: Array<{ rule?: Described }>;
	allow?: unknown[];
	metas?: Array<{ record?: string }>;
}

const cache = new WeakMap<Joi.Schema, Shape>();

/** The shape of a schema; an object without a record name is named `anonymousName`. */
export function shapeOf(schema: Joi.Schema, anonymousName: string): Shape {
	let shape = cache.get(schema);
	if (!shape) {
		shape = read(schema.describe() as Described, anonymousName);
		cache.set(schema, shape);
	}
	return shape;
}

/** An operation's request as a record named after the operation. */
export function requestShape(op: { name: string; request: Joi.ObjectSchema }): RecordShape {
	const shape = shapeOf(op.request, op.name);
	return shape.kind === "record" ? { ...shape, name: op.name } : { kind: "record", name: op.name, fields: [] };
}

/** The record a response is made of: the response itself, or the item of a list. */
export function recordOf(shape: Shape): RecordShape | undefined {
	if (shape.kind === "record") return shape;
	if (shape.kind === "list") return recordOf(shape.item);
	return undefined;
}

/** Every record a shape holds, itself included, each once, depth first. */
export function recordsWithin(shape: Shape, found = new Map<string, RecordShape>()): Map<string, RecordShape> {
	switch (shape.kind) {
		case "record":
			if (found.has(shape.name)) break;
			found.set(shape.name, shape);
			for (const field of shape.fields) recordsWithin(field.shape, found);
			break;
		case "list":
			recordsWithin(shape.item, found);
			break;
		case "dictionary":
			recordsWithin(shape.value, found);
			break;
	}
	return found;
}

function read(d: Described, name: string): Shape {
	switch (d.type) {
		case "string":
		case "guid":
		case "timestamp":
		case "boolean":
			return { kind: d.type };
		case "date":
			return { kind: "timestamp" };
		case "number":
			return { kind: d.rules?.some(r => r.name === "integer") ? "integer" : "number" };
		case "array":
		case "list":
			return { kind: "list", item: d.items?.[0] ? read(d.items[0], `${name}Item`) : { kind: "any" } };
		case "object": {
			const recordName = d.metas?.find(m => m.record)?.record ?? name;
			if (d.keys)
				return {
					kind: "record",
					name: recordName,
					fields: Object.entries(d.keys).map(([key, sub]) => field(key, sub, recordName)),
				};
			const value = d.patterns?.[0]?.rule;
			if (value) return { kind: "dictionary", value: read(value, `${recordName}Value`) };
			return { kind: "any" };
		}
		default:
			return { kind: "any" };
	}
}

function field(name: string, d: Described, owner: string): Field {
	const f: Field = { name, shape: read(d, `${owner}${name}`), required: d.flags?.presence === "required" };
	if (d.flags?.description) f.description = d.flags.description;
	if (d.flags?.default !== undefined && typeof d.flags.default !== "function") f.default = d.flags.default;
	if (d.flags?.only && d.allow) f.values = d.allow;
	for (const rule of d.rules ?? []) {
		const limit = typeof rule.args?.limit === "number" ? rule.args.limit : undefined;
		if (rule.name === "min" || rule.name === "length") f.min = limit;
		if (rule.name === "max" || rule.name === "length") f.max = limit;
		if (rule.name === "email") f.format = "email";
		if (rule.name === "uri") f.format = "uri";
		if (rule.name === "pattern" && rule.args?.regex) f.pattern = rule.args.regex.replace(/^\/(.*)\/[a-z]*$/s, "$1");
	}
	return f;
}
