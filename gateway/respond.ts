import { IncomingMessage, ServerResponse } from "node:http";
import { escapeWireDates } from "../shared/wire/dates";

/** What the gateway learned about the wanted response format before routing. */
export interface FormatRequest extends IncomingMessage {
	/** JSONP function name from ?callback=, already checked. */
	$jsonp?: string;
}

/**
 * Sends a body in the wire's JSON (PRODUCT.md §1): escaped "\/Date()\/" timestamps, wrapped as
 * `name(...)` with text/javascript when the caller asked for JSONP.
 */
export function sendJson(req: FormatRequest, res: ServerResponse, status: number, body: unknown): void {
	if (res.headersSent) return;
	const json = escapeWireDates(JSON.stringify(body));
	res.statusCode = status;
	if (req.$jsonp) {
		res.setHeader("Content-Type", "text/javascript; charset=utf-8");
		// U+2028/2029 are valid in JSON but end a line in older JavaScript engines.
		res.end(`${req.$jsonp}(${json.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")})`);
	} else {
		res.setHeader("Content-Type", "application/json; charset=utf-8");
		res.end(json);
	}
}
