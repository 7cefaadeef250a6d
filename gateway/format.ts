import { IncomingMessage } from "node:http";
import { failures } from "../shared/errors";
import { FormatRequest, ResponseFormat } from "./respond";
import { isXmlType } from "./xml/media-types";

const callbackName = /^[A-Za-z0-9_.$]{1,128}$/;

/**
 * ServiceStack's format names: asked for by suffix (`.csv`), predefined route (`/csv/reply/`) or `?format=`; Plaza
 * answers two.
 */
const formatNames = "json|xml|jsv|csv|protobuf|msgpack";
const formatSuffix = new RegExp(`\\.(${formatNames})$`, "i");
const predefinedRoute = new RegExp(`^/(${formatNames})/(?=(reply|oneway)(/|$))`, "i");

/**
 * Reads the format a caller asked for, before routing (PRODUCT.md §1): a `.json`/`.xml` suffix, `?format=` or the
 * `/json/…` and `/xml/…` routes (rewritten so that routes match), else `Accept`'s first choice, else for a caller who
 * accepts anything the XML of its body, as ServiceStack answers; `?callback=` asks for JSONP. 400 for any other
 * format, two different ones, or JSONP of XML.
 */
export function negotiateFormat(req: FormatRequest): void {
	const url = req.url ?? "/";
	const queryAt = url.indexOf("?");
	let path = queryAt < 0 ? url : url.slice(0, queryAt);
	const query = new URLSearchParams(queryAt < 0 ? "" : url.slice(queryAt + 1));
	const asked = new Set<string>();

	const suffix = formatSuffix.exec(path);
	if (suffix) {
		asked.add(suffix[1].toLowerCase());
		path = path.slice(0, suffix.index);
	}
	const predefined = predefinedRoute.exec(path);
	if (predefined) {
		asked.add(predefined[1].toLowerCase());
		path = `/json/${path.slice(predefined[0].length)}`;
	}
	const format = query.get("format");
	if (format !== null) asked.add(format.toLowerCase());
	req.url = path + (queryAt < 0 ? "" : url.slice(queryAt));

	const unsupported = [...asked].find(f => f !== "json" && f !== "xml");
	if (unsupported !== undefined)
		throw failures.field("format", "InvalidValue", `The format "${unsupported}" is not supported: use json or xml`);
	if (asked.size > 1)
		throw failures.field("format", "InvalidValue", "The request asks for both JSON and XML: ask for one");
	const explicit = [...asked][0] as ResponseFormat | undefined;

	const callback = query.get("callback");
	if (callback !== null) {
		if (!callbackName.test(callback)) {
			throw failures.field("callback", "InvalidValue", "callback may hold only letters, digits, _, . and $");
		}
		if (explicit === "xml")
			throw failures.field("callback", "InvalidValue", "JSONP wraps JSON: leave out callback, or ask for JSON");
		req.$jsonp = callback;
		return;
	}
	req.$format = explicit ?? preferredFormat(req);
}

/** XML when `Accept` puts XML first, or accepts anything (or is missing) and the body is XML; else JSON. */
function preferredFormat(req: IncomingMessage): ResponseFormat {
	const first = firstChoice(req.headers.accept);
	if (first !== undefined && isXmlType(first)) return "xml";
	if ((first === undefined || first === "*/*") && isXmlType(req.headers["content-type"])) return "xml";
	return "json";
}

/** The media range `Accept` prefers: the highest q, the first among equals; undefined without one. */
function firstChoice(accept: string | undefined): string | undefined {
	let best: string | undefined;
	let bestQ = 0;
	for (const range of (accept ?? "").split(",")) {
		const [type, ...params] = range.split(";").map(part => part.trim().toLowerCase());
		const q = Number(params.find(p => p.startsWith("q="))?.slice(2) ?? 1);
		if (type && q > bestQ) [best, bestQ] = [type, q];
	}
	return best;
}
