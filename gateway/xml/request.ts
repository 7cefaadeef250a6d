import { operationNamed } from "../../shared/catalogue";
import { failures } from "../../shared/errors";
import { requestShape } from "../description/shapes";
import { paramsOf } from "../soap/decode";
import { ns } from "../soap/namespaces";
import { parseXmlDocument } from "./document";

/**
 * The fields of an XML request body, as a JSON body would hold them. The root is the request DTO's
 * element (`<CreatePost xmlns="http://schemas.servicestack.net/types">`), read with that
 * operation's request shape exactly as a SOAP Body's request is; the broker middleware then binds
 * and validates the fields as it does JSON's.
 */
export function xmlRequestFields(bytes: Buffer): Record<string, unknown> {
	const root = parseXmlDocument(bytes, "The XML body");
	const operation = root.uri === ns.types || root.uri === "" ? operationNamed(root.local) : undefined;
	if (!operation)
		throw failures.invalidBody(
			`The XML body's root element must be an operation's request in the namespace ${ns.types}, not {${root.uri}}${root.local}`,
		);
	return paramsOf(root, requestShape(operation));
}
