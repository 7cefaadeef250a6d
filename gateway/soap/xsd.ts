import Joi from "joi";
import { ResponseStatus } from "../../shared/records/common";
import { Field, RecordShape, Shape, shapeOf } from "../description/shapes";

/** The schema a type is declared in: the types namespace, WCF's Arrays or Serialization, or XML Schema's own. */
export type Space = "types" | "arrays" | "serialization" | "xs";

export interface XsdType {
	space: Space;
	name: string;
	/** Strings, records and lists may be nil; value types (guid, dateTime, int, boolean) may not, as in WCF. */
	nillable: boolean;
}

/** The XML Schema type a shape is written as, named as WCF's DataContract exporter names it. */
export function xsdType(shape: Shape): XsdType {
	switch (shape.kind) {
		case "guid":
			return { space: "serialization", name: "guid", nillable: false };
		case "timestamp":
			return { space: "xs", name: "dateTime", nillable: false };
		case "integer":
			return { space: "xs", name: "int", nillable: false };
		case "number":
			return { space: "xs", name: "double", nillable: false };
		case "boolean":
			return { space: "xs", name: "boolean", nillable: false };
		case "record":
			return { space: "types", name: shape.name, nillable: true };
		case "list": {
			const item = xsdType(shape.item);
			return { space: item.space === "types" ? "types" : "arrays", name: `ArrayOf${item.name}`, nillable: true };
		}
		case "dictionary": {
			const value = xsdType(shape.value);
			return {
				space: value.space === "types" ? "types" : "arrays",
				name: `ArrayOfKeyValueOfstring${value.name}`,
				nillable: true,
			};
		}
		default:
			return { space: "xs", name: "string", nillable: true };
	}
}

/**
 * ServiceStack's own records fix their member order with DataMember(Order) (ErrorCode first), and
 * its clients read them in that order.
 */
const declaredOrder = new Set(["ResponseStatus", "ResponseError"]);

/** A record's members in the order the WSDL declares and Plaza writes them: DataContract's ordinal order. */
export function members(record: RecordShape): Field[] {
	if (declaredOrder.has(record.name)) return record.fields;
	return [...record.fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** How an operation's result is carried in its `<Op>Response` element. */
export interface ResponseLayout {
	/** The `<Op>Response` type: always with a ResponseStatus, where failures are reported. */
	type: RecordShape;
	/** The `<Op>Response` value of a successful result. */
	wrap(result: unknown): Record<string, unknown>;
}

const layouts = new WeakMap<Joi.Schema, Map<string, ResponseLayout>>();

/**
 * A response record named `<Op>Response` (AuthResponse) is the element itself. Any other result is
 * its member, as ServiceStack's response DTOs hold theirs (CreateCommentResponse.Comment), and a
 * list is named by its records in the plural (GetCommentsResponse.Comments, an ArrayOfComment).
 */
export function responseLayout(op: { name: string; response: Joi.Schema }): ResponseLayout {
	let byName = layouts.get(op.response);
	if (!byName) layouts.set(op.response, (byName = new Map<string, ResponseLayout>()));
	let layout = byName.get(op.name);
	if (!layout) byName.set(op.name, (layout = makeLayout(op)));
	return layout;
}

function makeLayout(op: { name: string; response: Joi.Schema }): ResponseLayout {
	const name = `${op.name}Response`;
	const shape = shapeOf(op.response, name);
	const status: Field = { name: "ResponseStatus", shape: shapeOf(ResponseStatus, "ResponseStatus"), required: false };
	if (shape.kind === "record" && shape.name === name) {
		const fields = shape.fields.some(f => f.name === status.name) ? shape.fields : [...shape.fields, status];
		return {
			type: { kind: "record", name, fields },
			wrap: result => (result && typeof result === "object" ? (result as Record<string, unknown>) : {}),
		};
	}
	const member = memberName(shape);
	return {
		type: { kind: "record", name, fields: [{ name: member, shape, required: false }, status] },
		wrap: result => ({ [member]: result }),
	};
}

function memberName(shape: Shape): string {
	if (shape.kind === "record") return shape.name;
	if (shape.kind === "list" && shape.item.kind === "record") return plural(shape.item.name);
	return "Result";
}

function plural(name: string): string {
	if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
	if (/(s|x|z|ch|sh)$/i.test(name)) return `${name}es`;
	return `${name}s`;
}
