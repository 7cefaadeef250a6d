import { Operation } from "../../shared/catalogue";
import { writerFor } from "../../shared/wire/write";
import { escapeWireDates } from "../../shared/wire/dates";
import { envelope, responseEnvelope, writeRecord } from "../soap/encode";
import { ns } from "../soap/namespaces";
import { responseLayout } from "../soap/xsd";
import { RecordShape, requestShape, Shape, shapeOf } from "./shapes";

/** A sample of each kind of value, in Plaza's inner form (timestamps as epoch milliseconds). */
const samples = {
	guid: "0f8fad5bd9cb469fa16570867728950e",
	timestamp: 1732269600000,
	integer: 0,
	number: 0,
	boolean: false,
	string: "String",
} as const;

/**
 * A value of the shape with every field filled in, as ServiceStack's metadata pages show it; a record met again inside
 * itself is left out.
 */
export function exampleOf(shape: Shape, within: ReadonlySet<string> = new Set()): unknown {
	switch (shape.kind) {
		case "record": {
			if (within.has(shape.name)) return undefined;
			const inner = new Set(within).add(shape.name);
			return Object.fromEntries(
				shape.fields.map(f => [f.name, f.default ?? f.values?.[0] ?? exampleOf(f.shape, inner)]),
			);
		}
		case "list": {
			const item = exampleOf(shape.item, within);
			return item === undefined ? [] : [item];
		}
		case "dictionary":
			return { String: exampleOf(shape.value, within) };
		case "any":
			return undefined;
		default:
			return samples[shape.kind];
	}
}

/** The example request's body in a format: JSON, ServiceStack's XML, or a SOAP 1.1 envelope. */
export function exampleRequestBody(op: Operation, format: "json" | "xml" | "soap11"): string {
	const shape = requestShape(op);
	const value = exampleOf(shape) as Record<string, unknown>;
	if (format === "json") return prettyJson(writerFor(op.request)(value));
	const element = xmlElement(shape, value);
	return prettyXml(format === "xml" ? `<?xml version="1.0" encoding="utf-8"?>${element}` : envelope("", element));
}

/**
 * The example response's body: JSON, or the `<Op>Response` element of a SOAP 1.1 envelope; undefined for XML, whose
 * answer has its own shape.
 */
export function exampleResponseBody(op: Operation, format: "json" | "xml" | "soap11"): string | undefined {
	const value = exampleOf(shapeOf(op.response, `${op.name}Response`));
	if (format === "json") return prettyJson(writerFor(op.response)(value));
	if (format === "xml") return undefined;
	const layout = responseLayout(op);
	return prettyXml(responseEnvelope(layout.type, layout.wrap(value)));
}

function xmlElement(shape: RecordShape, value: Record<string, unknown>): string {
	const out = [`<${shape.name} xmlns:i="${ns.xsi}" xmlns="${ns.types}" xmlns:arr="${ns.arrays}">`];
	writeRecord(out, shape, value);
	out.push(`</${shape.name}>`);
	return out.join("");
}

/** Indented JSON with the wire's escaped "\/Date()\/" timestamps (escapeWireDates reads JSON text, indented or not). */
function prettyJson(value: unknown): string {
	return escapeWireDates(JSON.stringify(value, null, 2));
}

/**
 * Indents XML Plaza wrote itself (elements and text, no mixed content): one element per line, a text-only element on
 * one line.
 */
function prettyXml(xml: string): string {
	const tokens = xml.split(/(<[^>]+>)/).filter(t => t !== "");
	const lines: string[] = [];
	let depth = 0;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i];
		const pad = "  ".repeat(depth);
		if (token.startsWith("<?")) lines.push(token);
		else if (token.startsWith("</")) {
			depth--;
			lines.push("  ".repeat(depth) + token);
		} else if (token.endsWith("/>")) lines.push(pad + token);
		else if (token.startsWith("<") && !tokens[i + 1]?.startsWith("<") && tokens[i + 2]?.startsWith("</")) {
			lines.push(pad + token + tokens[i + 1] + tokens[i + 2]);
			i += 2;
		} else if (token.startsWith("<")) {
			lines.push(pad + token);
			depth++;
		} else lines.push(pad + token);
	}
	return lines.join("\n");
}
