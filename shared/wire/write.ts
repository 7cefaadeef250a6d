import Joi from "joi";
import { toWireDate } from "./dates";

type Writer = (value: unknown) => unknown;

interface Description {
	type: string;
	keys?: Record<string, Description>;
	items?: Description[];
	/** A dictionary (`object().pattern(key, value)`): its values' description. */
	patterns?: Array<{ rule?: Description }>;
}

const compiled = new WeakMap<Joi.Schema, Writer>();

/**
 * The wire form of a value described by a record schema: fields in the record's order, PascalCase
 * as declared, timestamps as "/Date(ms+0000)/", nulls left out, missing lists written as [],
 * dictionaries entry by entry, anything the record does not declare (store ids, internals) never written.
 */
export function writerFor(schema: Joi.Schema): Writer {
	let writer = compiled.get(schema);
	if (!writer) {
		writer = compile(schema.describe() as Description);
		compiled.set(schema, writer);
	}
	return writer;
}

function compile(d: Description): Writer {
	switch (d.type) {
		case "object": {
			const valueRule = d.patterns?.[0]?.rule;
			if (!d.keys && valueRule) {
				const value = compile(valueRule);
				return dictionary =>
					dictionary && typeof dictionary === "object"
						? Object.fromEntries(
								Object.entries(dictionary)
									.filter(([, v]) => v !== null && v !== undefined)
									.map(([k, v]) => [k, value(v)]),
							)
						: undefined;
			}
			const fields = Object.entries(d.keys ?? {}).map(
				([name, sub]) => [name, compile(sub), sub.type === "array" || sub.type === "list"] as const,
			);
			return value => {
				if (value === null || typeof value !== "object") return undefined;
				const source = value as Record<string, unknown>;
				const out: Record<string, unknown> = {};
				for (const [name, write, isList] of fields) {
					const v = source[name];
					if (v !== undefined && v !== null) out[name] = write(v);
					else if (isList) out[name] = [];
				}
				return out;
			};
		}
		case "array":
		case "list": {
			const item = d.items?.[0] ? compile(d.items[0]) : (v: unknown) => v;
			return value => (Array.isArray(value) ? value.filter(v => v !== null && v !== undefined).map(item) : []);
		}
		case "timestamp":
			return value =>
				typeof value === "number"
					? toWireDate(value)
					: typeof value === "string"
						? toWireDate(Date.parse(value))
						: undefined;
		default:
			return value => value;
	}
}
