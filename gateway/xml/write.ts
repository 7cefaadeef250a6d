import Joi from "joi";
import { ResponseStatus as ResponseStatusRecord } from "../../shared/records/common";
import { RecordShape, Shape, shapeOf } from "../description/shapes";
import { ResponseStatus } from "../errors";
import { writeElement } from "../soap/encode";
import { ns } from "../soap/namespaces";
import { Space, xsdType } from "../soap/xsd";

/** The namespace a root element of each schema is written in, as DataContractSerializer writes it. */
const rootNamespace: Record<Space, string> = {
	types: ns.types,
	arrays: ns.arrays,
	serialization: ns.serialization,
	xs: ns.serialization,
};

/** ServiceStack's body of a failure that has no response DTO of its own. */
const errorResponse: RecordShape = {
	kind: "record",
	name: "ErrorResponse",
	fields: [{ name: "ResponseStatus", shape: shapeOf(ResponseStatusRecord, "ResponseStatus"), required: false }],
};

/**
 * A value as ServiceStack writes it in XML: the DataContract of the WSDL's type, the element named
 * after the type (`<User>`, `<ArrayOfUser>`) with the namespace of its schema as the default and
 * `i:` bound to XML Schema instance; members as inside SOAP bodies. A null value is `i:nil`.
 */
export function dataContractXml(shape: Shape, value: unknown): string {
	const name = xsdType(shape).name;
	const out: string[] = [];
	writeElement(out, name, shape, value);
	const element = out.length ? out.join("") : `<${name} i:nil="true" />`;
	// WCF's Arrays (lists of strings, dictionaries) are written as `arr:` inside a types element.
	const arrays = element.includes("<arr:") ? ` xmlns:arr="${ns.arrays}"` : "";
	const declarations = ` xmlns:i="${ns.xsi}" xmlns="${rootNamespace[xsdType(shape).space]}"${arrays}`;
	return `<?xml version="1.0" encoding="utf-8"?>${element.slice(0, name.length + 1)}${declarations}${element.slice(name.length + 1)}`;
}

/**
 * An operation's result in XML: the type the WSDL names its response (a record, or the ArrayOf of a list's records).
 */
export function answerXml(op: { name: string; response: Joi.Schema }, result: unknown): string {
	return dataContractXml(shapeOf(op.response, `${op.name}Response`), result);
}

/** A failure in XML: `<ErrorResponse><ResponseStatus>…</ResponseStatus></ErrorResponse>`. */
export function failureXml(status: ResponseStatus): string {
	return dataContractXml(errorResponse, { ResponseStatus: status });
}
