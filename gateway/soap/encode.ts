import { RecordShape, Shape } from "../description/shapes";
import { ns } from "./namespaces";
import { escapeText } from "./xml";
import { members, Space, xsdType } from "./xsd";

/**
 * A SOAP 1.1 envelope holding `value` as the element `type.name`, members in schema order, every
 * namespace bound: the types namespace as the default, WCF's Arrays as `arr`. Nulls are left out
 * (every member is minOccurs 0); lists are always written, empty when missing, as in JSON.
 * With a status, the envelope also carries ServiceStack's X-Status header.
 */
export function responseEnvelope(type: RecordShape, value: Record<string, unknown>, status?: number): string {
	const out: string[] = [];
	out.push(`<${type.name} xmlns="${ns.types}" xmlns:arr="${ns.arrays}">`);
	writeRecord(out, type, value);
	out.push(`</${type.name}>`);
	const header = status ? `<soap:Header><X-Status xmlns="${ns.types}">${status}</X-Status></soap:Header>` : "";
	return envelope(header, out.join(""));
}

/** An envelope around a body's content. */
export function envelope(header: string, body: string): string {
	return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ns.envelope}" xmlns:xsi="${ns.xsi}">${header}<soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** The members of a record value, in schema order. */
export function writeRecord(out: string[], type: RecordShape, value: Record<string, unknown>): void {
	for (const field of members(type)) writeElement(out, field.name, field.shape, value[field.name]);
}

/** One member (or a document's root, see gateway/xml/write.ts): nothing for null, except an empty list. */
export function writeElement(out: string[], name: string, shape: Shape, value: unknown): void {
	if (value === null || value === undefined) {
		if (shape.kind === "list") out.push(`<${name} />`);
		return;
	}
	switch (shape.kind) {
		case "record":
			if (typeof value !== "object") return;
			out.push(`<${name}>`);
			writeRecord(out, shape, value as Record<string, unknown>);
			out.push(`</${name}>`);
			return;
		case "list": {
			const space = xsdType(shape).space;
			const item = qualified(space, xsdType(shape.item).name);
			out.push(`<${name}>`);
			for (const v of Array.isArray(value) ? value : [])
				if (v !== null && v !== undefined) writeElement(out, item, shape.item, v);
			out.push(`</${name}>`);
			return;
		}
		case "dictionary": {
			const space = xsdType(shape).space;
			const [pair, key, val] = [`KeyValueOfstring${xsdType(shape.value).name}`, "Key", "Value"].map(n =>
				qualified(space, n),
			);
			out.push(`<${name}>`);
			for (const [k, v] of Object.entries(typeof value === "object" ? value : {})) {
				out.push(`<${pair}><${key}>${escapeText(k)}</${key}>`);
				writeElement(out, val, shape.value, v);
				out.push(`</${pair}>`);
			}
			out.push(`</${name}>`);
			return;
		}
		default: {
			const text = scalarText(shape, value);
			if (text !== undefined) out.push(`<${name}>${escapeText(text)}</${name}>`);
		}
	}
}

/** Elements of the types namespace are unprefixed (it is the default); WCF's Arrays are `arr:`. */
function qualified(space: Space, name: string): string {
	return space === "arrays" ? `arr:${name}` : name;
}

/** The XML Schema lexical form of a scalar: GUIDs in the D form of ser:guid, timestamps as xs:dateTime. */
function scalarText(shape: Shape, value: unknown): string | undefined {
	switch (shape.kind) {
		case "guid": {
			const s = String(value);
			return /^[0-9a-f]{32}$/i.test(s)
				? `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`
				: s;
		}
		case "timestamp": {
			const ms =
				typeof value === "number"
					? value
					: typeof value === "string"
						? Date.parse(value)
						: value instanceof Date
							? value.getTime()
							: NaN;
			return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
		}
		case "integer":
		case "number":
			return typeof value === "number"
				? Number.isFinite(value)
					? String(value)
					: Number.isNaN(value)
						? "NaN"
						: value > 0
							? "INF"
							: "-INF"
				: String(value);
		case "boolean":
			return typeof value === "boolean" ? String(value) : String(value === "true" || value === 1);
		default:
			// eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects went to JSON just before; the rest are scalars
			return typeof value === "object" ? JSON.stringify(value) : String(value);
	}
}
