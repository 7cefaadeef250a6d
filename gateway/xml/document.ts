import { failures } from "../../shared/errors";
import { parseXml, XmlElement } from "../soap/xml-tree";

/** Enough for any request of the catalogue, small enough that a hostile document costs little. */
const limits = { maxDepth: 32, maxElements: 10_000 };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The root element of an XML document a client sent: UTF-8 only, read by the safe parser (no DTD,
 * so no entities; bounded depth and size). Any failure is a 400 that names the document as `what`.
 */
export function parseXmlDocument(bytes: Buffer, what: string): XmlElement {
	let text: string;
	try {
		text = utf8.decode(bytes);
	} catch {
		throw failures.invalidBody(`${what} is not UTF-8`);
	}
	return parseXml(text, limits);
}
