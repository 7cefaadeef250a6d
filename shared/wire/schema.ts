import Joi from "joi";
import { parseGuid } from "./guid";
import { parseWireDate } from "./dates";
import { ObjectOf, TypedBuilders, TypedObject } from "./typed";

/**
 * Joi with the wire's own types, so that one declaration validates input, converts it to Plaza's inner form and
 * describes the API: string() refuses a NUL or an unpaired surrogate (PostgreSQL refuses both); guid() takes the N, D
 * or B form and yields N; timestamp() takes "/Date(ms)/", ISO 8601 or a Date and yields epoch ms; list(item) also
 * splits a query value "a,b" or "[a,b]". The builders say in types what their schemas yield (see typed.ts).
 */
type WireRoot = TypedBuilders & Omit<Joi.Root, keyof TypedBuilders>;

/** A NUL, or half of a surrogate pair without its other half: text no store can keep (PostgreSQL refuses both). */
const unstorable = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a text can be kept as it is by every store: no NUL, no lone surrogate. */
export function isStorableText(text: string): boolean {
	return !unstorable.test(text);
}

export const w = Joi.extend(
	{
		type: "string",
		base: Joi.string(),
		messages: { "string.unstorable": "{{#label}} must not contain a NUL character or an unpaired surrogate" },
		// Runs after Joi's own string checks and before the rules (max, email…): one error for the field.
		validate(value: unknown, helpers) {
			return typeof value === "string" && !isStorableText(value)
				? { value, errors: [helpers.error("string.unstorable")] }
				: undefined;
		},
	},
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
				const text = String(value)
					.trim()
					.replace(/^\[(.*)\]$/s, "$1");
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
export function record<F extends Record<string, Joi.Schema>>(name: string, fields: F): TypedObject<ObjectOf<F>> {
	return w.object(fields).meta({ record: name });
}
