import { RecordShape, Shape } from "../description/shapes";
import { ns } from "./namespaces";
import { XmlElement } from "./xml-tree";

/**
 * The request fields of a request element, as the JSON route would have them: text for scalars
 * (the broker middleware then binds, validates and converts them exactly as JSON input), arrays for
 * lists, objects for records. `xsi:nil` is null (not given); elements the record does not name are
 * dropped by the binder later, and repeated scalar elements keep the first.
 */
export function paramsOf(element: XmlElement, request: RecordShape): Record<string, unknown> {
	return recordOf(element, request);
}

function valueOf(element: XmlElement, shape: Shape): unknown {
	if (isNil(element)) return null;
	switch (shape.kind) {
		case "record":
			return recordOf(element, shape);
		case "list":
			// No item elements but text: the JSON route's "a,b" form, which the list type splits.
			if (!element.children.length && element.text.trim()) return element.text;
			return element.children.map(child => valueOf(child, shape.item));
		case "dictionary":
			return Object.fromEntries(
				element.children.map(pair => [textOf(pair, "Key"), valueOf(childNamed(pair, "Value") ?? nil, shape.value)]),
			);
		case "boolean":
			return scalar(element, text => ({ "1": "true", "0": "false" })[text.trim()] ?? text);
		default:
			return scalar(element, text => text);
	}
}

function recordOf(element: XmlElement, shape: RecordShape): Record<string, unknown> {
	const fields = new Map(shape.fields.map(f => [f.name.toLowerCase(), f]));
	const out: Record<string, unknown> = {};
	for (const child of element.children) {
		const field = fields.get(child.local.toLowerCase());
		if (field && !Object.hasOwn(out, child.local)) out[child.local] = valueOf(child, field.shape);
	}
	return out;
}

/** A scalar's text; an element with elements inside stays an object, which validation refuses. */
function scalar(element: XmlElement, convert: (text: string) => string): unknown {
	return element.children.length ? {} : convert(element.text);
}

function childNamed(element: XmlElement, local: string): XmlElement | undefined {
	return element.children.find(c => c.local === local);
}

function textOf(element: XmlElement, local: string): string {
	return childNamed(element, local)?.text ?? "";
}

const nil: XmlElement = {
	uri: "",
	local: "",
	attributes: new Map([[`{${ns.xsi}}nil`, "true"]]),
	children: [],
	text: "",
};

function isNil(element: XmlElement): boolean {
	return ["true", "1"].includes(element.attributes.get(`{${ns.xsi}}nil`)?.trim() ?? "");
}
