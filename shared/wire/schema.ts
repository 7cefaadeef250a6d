import Joi from "joi";
import { parseGuid } from "./guid";
import { parseWireDate } from "./dates";

/**
 * Joi with the wire's own types. Request schemas and records are written with it, so that one
 * declaration validates input, converts it to Plaza's inner form, and describes the API.
 * - guid():      N, D or B form in any case, converted to the N form
 * - timestamp(): "/Date(ms)/" or ISO 8601 (or a JS Date), converted to epoch milliseconds
 * - list(item):  an array; a query-string value "a,b" or "[a,b]" is split into one
 */
interface WireRoot extends Joi.Root {
	guid(): Joi.StringSchema;
	timestamp(): Joi.NumberSchema;
	list<T = unknown>(item: Joi.Schema<T>): Joi.ArraySchema<T>;
}

export const w = Joi.extend(
	{
		type: "guid",
		base: Joi.string(),
		messages: { "guid.base": "{{#label}} is not a valid GUID" },
		validate(value: unknown, helpers) {
			const guid = typeof value === "string" ? parseGuid(value) : undefined;
			return guid ? { value: guid } : { value, errors: [helpers.error("guid.base")] };
		},
	},
	{
		type: "timestamp",
		base: Joi.number().integer(),
		messages: { "timestamp.base": "{{#label}} is not a valid date: use \\/Date(milliseconds)\\/ or ISO 8601" },
		coerce: {
			from: ["string", "object"],
			method(value: unknown, helpers) {
				if (value instanceof Date && !Number.isNaN(value.getTime())) return { value: value.getTime() };
				const ms = typeof value === "string" ? parseWireDate(value) : undefined;
				return ms === undefined ? { errors: [helpers.error("timestamp.base")] } : { value: ms };
			},
		},
	},
	{
		type: "list",
		base: Joi.array(),
		coerce: {
			from: "string",
			method(value: unknown) {
				const text = String(value).trim().replace(/^\[(.*)\]$/s, "$1");
				return { value: text === "" ? [] : text.split(",").map(s => s.trim()) };
			},
		},
		args(schema, item: Joi.Schema) {
			return (schema as Joi.ArraySchema).items(item);
		},
	},
) as WireRoot;

/** The name a record schema was declared with (see `record`). */
export function recordName(schema: Joi.Schema): string | undefined {
	const metas = schema.describe().metas as Array<{ record?: string }> | undefined;
	return metas?.find(m => m.record)?.record;
}

/** A named record: an object schema whose keys, in order, are the fields written on the wire. */
export function record(name: string, fields: Joi.PartialSchemaMap): Joi.ObjectSchema {
	return w.object(fields).meta({ record: name });
}
