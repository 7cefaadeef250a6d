import { SaxesParser } from "saxes";
import { failures } from "../../shared/errors";

/** An element of a parsed document: its namespace and local name, attributes, element children and text. */
export interface XmlElement {
	uri: string;
	local: string;
	/** Attribute values by `{uri}local`. */
	attributes: Map<string, string>;
	children: XmlElement[];
	text: string;
}

export interface XmlLimits {
	/** Deepest nesting of elements. */
	maxDepth: number;
	/** Elements in the whole document. */
	maxElements: number;
}

/**
 * Parses XML that a client sent, safely: a document type declaration is refused outright, so no
 * entity is ever defined (no XXE, no entity expansion), and only the five predefined entities and
 * character references are known; nesting and element count are bounded. Any failure is a 400.
 */
export function parseXml(text: string, limits: XmlLimits): XmlElement {
	const parser = new SaxesParser({ xmlns: true, position: false });
	const stack: XmlElement[] = [];
	let root: XmlElement | undefined;
	let count = 0;
	let refusal: string | undefined;
	const refuse = (why: string): never => {
		refusal = why;
		throw new Error(why);
	};

	parser.on("doctype", () => refuse("A document type declaration (DTD) is not allowed"));
	parser.on("xmldecl", decl => {
		if (decl.encoding && !/^utf-?8$/i.test(decl.encoding))
			refuse(`The encoding ${decl.encoding} is not supported: send UTF-8`);
	});
	parser.on("opentag", tag => {
		if (++count > limits.maxElements) refuse(`The document has more than ${limits.maxElements} elements`);
		if (stack.length >= limits.maxDepth) refuse(`The document is nested deeper than ${limits.maxDepth} elements`);
		const attributes = new Map<string, string>();
		for (const a of Object.values(tag.attributes)) attributes.set(`{${a.uri}}${a.local}`, a.value);
		const element: XmlElement = { uri: tag.uri, local: tag.local, attributes, children: [], text: "" };
		const parent = stack[stack.length - 1];
		if (parent) parent.children.push(element);
		else root = element;
		stack.push(element);
	});
	parser.on("text", text => {
		const current = stack[stack.length - 1];
		if (current) current.text += text;
	});
	parser.on("cdata", text => {
		const current = stack[stack.length - 1];
		if (current) current.text += text;
	});
	parser.on("closetag", () => {
		stack.pop();
	});

	try {
		parser.write(text).close();
	} catch (err) {
		throw failures.invalidBody(
			refusal ?? `The XML is not well-formed: ${(err as Error).message.replace(/^undefined:/, "").trim()}`,
		);
	}
	if (!root) throw failures.invalidBody("The XML has no root element");
	return root;
}
