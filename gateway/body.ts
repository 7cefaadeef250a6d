import { IncomingMessage, ServerResponse } from "node:http";
import bodyParser from "body-parser";
import { failures, PlazaError } from "../shared/errors";
import { refuseDeepBody, refuseDeepFieldNames } from "./nesting";
import { isSoapCall } from "./soap/handler";
import { readBody as readRawBody } from "./soap/read-body";
import { isXmlType } from "./xml/media-types";
import { xmlRequestFields } from "./xml/request";

type Parser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

const parsers = new Map<number, Parser[]>();

/** body-parser's default: no operation has half as many fields. */
const formFieldLimit = 1000;

/** body-parser's JSON (strict: an object or an array) and form parsers for a body limit, made once per limit. */
function parsersFor(limitBytes: number): Parser[] {
	let found = parsers.get(limitBytes);
	if (!found) {
		found = [
			bodyParser.json({ strict: true, limit: limitBytes }),
			bodyParser.urlencoded({ extended: false, limit: limitBytes, parameterLimit: formFieldLimit }),
		];
		parsers.set(limitBytes, found);
	}
	return found;
}

/**
 * Reads a JSON, form or XML body into `req.body` (body-parser: limits, charsets, its own 400/413/415
 * errors, which describeFailure knows; XML: the request DTO's fields, see gateway/xml/request.ts).
 * Other bodies (multipart, SOAP's envelope) are left unread for their own readers; a request without
 * a body costs nothing here. A body nesting deeper than maxNesting is a 400, whatever its format.
 */
export async function readBody(
	req: IncomingMessage & { body?: unknown },
	res: ServerResponse,
	limitBytes: number,
): Promise<void> {
	if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return;
	if (isXmlType(req.headers["content-type"]) && !isSoapCall(req)) {
		const bytes = await readRawBody(req, limitBytes);
		// An empty body holds no fields, as an empty JSON body does.
		if (bytes.length) req.body = xmlRequestFields(bytes);
	} else {
		const [json, form] = parsersFor(limitBytes);
		await parseWith(json, req, res);
		if (req.body === undefined) {
			await parseWith(form, req, res);
			// The form parser keeps `a[b]` as one flat name: its depth is in the name.
			if (req.body !== undefined) refuseDeepFieldNames(Object.keys(req.body), "The form");
		}
	}
	refuseDeepBody(req.body);
}

function parseWith(parse: Parser, req: IncomingMessage, res: ServerResponse): Promise<void> {
	return new Promise<void>((resolve, reject) =>
		parse(req, res, err => (err ? reject(formRefusal(err) ?? (err as Error)) : resolve())),
	);
}

/**
 * The form parser's own refusals as Plaza's failures: describeFailure does not know them, and they are the client's
 * doing.
 */
function formRefusal(err: unknown): PlazaError | undefined {
	switch ((err as { type?: unknown }).type) {
		case "parameters.too.many":
			return new PlazaError(413, "PayloadTooLarge", `The form has more than ${formFieldLimit} fields`);
		case "querystring.parse.rangeError":
			return failures.invalidBody("The form's field names are nested too deep");
		default:
			return undefined;
	}
}
