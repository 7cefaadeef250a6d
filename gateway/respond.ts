import { IncomingMessage, ServerResponse } from "node:http";
import { escapeWireDates } from "../shared/wire/dates";
import { ResponseStatus } from "./errors";
import { failureXml } from "./xml/write";
import { xmlContentType } from "./xml/media-types";

/** The formats Plaza answers in (PRODUCT.md §1): the wire's JSON, and XML as ServiceStack writes it. */
export type ResponseFormat = "json" | "xml";

/** What the gateway learned about the wanted response format before routing. */
export interface FormatRequest extends IncomingMessage {
	/** JSONP function name from ?callback=, already checked. */
	$jsonp?: string;
	/** The format to answer an operation or a failure in; JSON when unset. */
	$format?: ResponseFormat;
}

/** A body as the wire's JSON text (PRODUCT.md §1): escaped "\/Date()\/" timestamps. */
export function wireJson(body: unknown): string {
	return escapeWireDates(JSON.stringify(body));
}

/** Sends a body in the wire's JSON, wrapped as `name(...)` with text/javascript when the caller asked for JSONP. */
export function sendJson(req: FormatRequest, res: ServerResponse, status: number, body: unknown): void {
	if (!res.headersSent) sendJsonText(req, res, status, wireJson(body));
}

/** Sends JSON already written for the wire (see wireJson), as text or as its UTF-8 bytes. */
export function sendJsonText(req: FormatRequest, res: ServerResponse, status: number, json: string | Buffer): void {
	if (res.headersSent) return;
	res.statusCode = status;
	if (req.$jsonp) {
		res.setHeader("Content-Type", "text/javascript; charset=utf-8");
		// U+2028/2029 are valid in JSON but end a line in older JavaScript engines.
		const text = json.toString();
		res.end(`${req.$jsonp}(${text.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")})`);
	} else {
		res.setHeader("Content-Type", "application/json; charset=utf-8");
		res.end(json);
	}
}

/** Sends an XML document (see gateway/xml/write.ts). */
export function sendXml(res: ServerResponse, status: number, xml: string): void {
	if (res.headersSent) return;
	res.statusCode = status;
	res.setHeader("Content-Type", xmlContentType);
	res.end(xml);
}

/**
 * Sends a failure in the format asked for: ServiceStack's ErrorResponse in XML, else `{ ResponseStatus }` in the wire's
 * JSON.
 */
export function sendFailure(
	req: FormatRequest,
	res: ServerResponse,
	status: number,
	responseStatus: ResponseStatus,
): void {
	if (req.$format === "xml") sendXml(res, status, failureXml(responseStatus));
	else sendJson(req, res, status, { ResponseStatus: responseStatus });
}
