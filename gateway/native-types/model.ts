import { ResponseStatus } from "../../shared/records/common";
import { DescribedOperation, endpointsOf } from "../description/endpoints";
import { recordOf, recordsWithin, RecordShape, requestShape, Shape, shapeOf } from "../description/shapes";

/**
 * The catalogue as ServiceStack's metadata model (its `/types/metadata`), which every language's DTOs
 * are rendered from: .NET type names (`Guid`, `DateTime`, `List\`1` with GenericArgs), as ServiceStack writes them.
 */
export interface MetadataTypes {
	Config: { BaseUrl: string; Version: string };
	Namespaces: string[];
	/** Every record a request or response holds, ResponseStatus first. */
	Types: MetadataType[];
	Operations: MetadataOperationType[];
}

export interface MetadataType {
	Name: string;
	Description?: string;
	Properties: MetadataPropertyType[];
}

/**
 * A type as a name and, for List`1 and Dictionary`2, its arguments (`List<Post>` is Name List`1, GenericArgs ["Post"]).
 */
export interface MetadataTypeName {
	Name: string;
	GenericArgs?: string[];
}

export interface MetadataPropertyType {
	/** The property's name as on the wire (PascalCase, or as the catalogue spells it). */
	Name: string;
	/** Its type's name; GenericArgs as in MetadataTypeName. */
	Type: string;
	GenericArgs?: string[];
	IsRequired?: boolean;
	/** A .NET value type (Guid, DateTime, Int32, Double, Boolean): nullable when not required. */
	IsValueType?: boolean;
	Description?: string;
}

export interface MetadataRoute {
	/** ServiceStack's path syntax: `/Users/{Id}`. */
	Path: string;
	Verbs: string;
}

export interface MetadataOperationType {
	Request: MetadataType;
	Response: MetadataTypeName;
	/** The verb a client uses when it is not told one (`getMethod()`): the routes' one verb, else POST. */
	Method: string;
	Actions: string[];
	Routes: MetadataRoute[];
	Summary: string;
}

/** The .NET name of each scalar shape; the value types among them are nullable when optional. */
const scalars: Record<string, { name: string; valueType: boolean }> = {
	string: { name: "String", valueType: false },
	guid: { name: "Guid", valueType: true },
	timestamp: { name: "DateTime", valueType: true },
	integer: { name: "Int32", valueType: true },
	number: { name: "Double", valueType: true },
	boolean: { name: "Boolean", valueType: true },
	any: { name: "Object", valueType: false },
};

/** The metadata of every operation given, at the address the client reached Plaza at. */
export function metadataTypes(ops: readonly DescribedOperation[], baseUrl: string, version: string): MetadataTypes {
	const records = recordsWithin(shapeOf(ResponseStatus, "ResponseStatus"));
	const responseRecords = new Set<string>();
	const operations = ops.map(op => {
		const request = requestShape(op);
		for (const field of request.fields) recordsWithin(field.shape, records);
		const response = shapeOf(op.response, `${op.name}Response`);
		recordsWithin(response, records);
		const returned = recordOf(response);
		if (returned) responseRecords.add(returned.name);
		return operationType(op, request, response);
	});
	// Failures come as a ResponseStatus beside the record's fields, so a response type has room for it.
	const types = [...records.values()].map(r => recordType(r, responseRecords.has(r.name)));
	return { Config: { BaseUrl: baseUrl, Version: version }, Namespaces: [], Types: types, Operations: operations };
}

function operationType(op: DescribedOperation, request: RecordShape, response: Shape): MetadataOperationType {
	// Without REST routes a request is sent to the generic route, which needs no route on the type.
	const endpoints = op.routes.length ? endpointsOf(op) : [];
	const verbs = [...new Set(op.routes.map(r => r.method))];
	return {
		Request: recordType(request, false),
		Response: typeName(response),
		Method: verbs.length === 1 ? verbs[0] : "POST",
		Actions: verbs.length ? verbs : ["ANY"],
		Routes: endpoints.map(e => ({ Path: e.path, Verbs: e.method })),
		Summary: op.summary,
	};
}

function recordType(r: RecordShape, isResponse: boolean): MetadataType {
	const properties = r.fields.map<MetadataPropertyType>(f => ({
		Name: f.name,
		...propertyType(f.shape),
		...(f.required ? { IsRequired: true } : {}),
		...(f.shape.kind in scalars && scalars[f.shape.kind].valueType ? { IsValueType: true } : {}),
		...(f.description ? { Description: f.description } : {}),
	}));
	if (isResponse && !properties.some(p => p.Name === "ResponseStatus"))
		properties.push({ Name: "ResponseStatus", Type: "ResponseStatus" });
	return { Name: r.name, Properties: properties };
}

function propertyType(shape: Shape): { Type: string; GenericArgs?: string[] } {
	const { Name, GenericArgs } = typeName(shape);
	return GenericArgs ? { Type: Name, GenericArgs } : { Type: Name };
}

function typeName(shape: Shape): MetadataTypeName {
	switch (shape.kind) {
		case "record":
			return { Name: shape.name };
		case "list":
			return { Name: "List`1", GenericArgs: [argument(shape.item)] };
		case "dictionary":
			return { Name: "Dictionary`2", GenericArgs: ["String", argument(shape.value)] };
		default:
			return { Name: scalars[shape.kind].name };
	}
}

/** A generic argument in C# syntax, as ServiceStack writes nested ones (`List<String>`). */
function argument(shape: Shape): string {
	const t = typeName(shape);
	if (!t.GenericArgs) return t.Name;
	return `${t.Name.replace(/`\d+$/, "")}<${t.GenericArgs.join(",")}>`;
}
