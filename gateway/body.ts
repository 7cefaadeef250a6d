import { IncomingMessage, ServerResponse } from "node:http";
import bodyParser from "body-parser";

type Parser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

const parsers = new Map<number, Parser[]>();

/** body-parser's JSON (strict: an object or an array) and form parsers for a body limit, made once per limit. */
function parsersFor(limitBytes: number): Parser[] {
	let found = parsers.get(limitBytes);
	if (!found) {
		found = [bodyParser.json({ strict: true, limit: limitBytes }), bodyParser.urlencoded({ extended: false, limit: limitBytes })];
		parsers.set(limitBytes, found);
	}
	return found;
}

/**
 * Reads a JSON or form body into `req.body` (body-parser: limits, charsets, its own 400/413/415
 * errors, which describeFailure knows). Other bodies (multipart, SOAP's XML) are left unread for
 * their own readers; a request without a body costs nothing here.
 */
export async function readBody(req: IncomingMessage & { body?: unknown }, res: ServerResponse, limitBytes: number): Promise<void> {
	if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return;
	for (const parse of parsersFor(limitBytes)) {
		await new Promise<void>((resolve, reject) => parse(req, res, err => (err ? reject(err) : resolve())));
		if (req.body !== undefined) return;
	}
}
