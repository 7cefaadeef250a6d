import { failures, PlazaError } from "../../shared/errors";
import { ns } from "./namespaces";
import { XmlElement } from "./xml-tree";
import { parseXmlDocument } from "../xml/document";

/**
 * The element inside the Body of a SOAP 1.1 envelope: the request. Anything else (not UTF-8, not
 * well-formed, a DTD, a SOAP 1.2 envelope, no or several requests, a header the sender requires
 * us to understand) is refused.
 */
export function requestElement(bytes: Buffer): XmlElement {
	const root = parseXmlDocument(bytes, "The envelope");
	if (root.local === "Envelope" && root.uri === ns.envelope12)
		throw fault("VersionMismatch", "This is a SOAP 1.1 endpoint: send a SOAP 1.1 envelope");
	if (root.local !== "Envelope" || root.uri !== ns.envelope)
		throw failures.invalidBody(`The root element must be the SOAP 1.1 Envelope (${ns.envelope})`);

	const header = root.children.find(e => e.uri === ns.envelope && e.local === "Header");
	const required = header?.children.find(e =>
		["1", "true"].includes(e.attributes.get(`{${ns.envelope}}mustUnderstand`) ?? ""),
	);
	if (required) throw fault("MustUnderstand", `The header ${required.local} is not understood here`);

	const body = root.children.find(e => e.uri === ns.envelope && e.local === "Body");
	if (!body) throw failures.invalidBody("The envelope has no Body");
	if (body.children.length !== 1) throw failures.invalidBody("The Body must hold exactly one request element");
	return body.children[0];
}

/** The ErrorCode of a failure that is reported with this SOAP fault code rather than as Client or Server. */
export const faultCodes = new Set(["VersionMismatch", "MustUnderstand"]);

function fault(code: string, message: string): PlazaError {
	return new PlazaError(400, code, message);
}
