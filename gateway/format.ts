import { failures } from "../shared/errors";
import { FormatRequest } from "./respond";

const callbackName = /^[A-Za-z0-9_.$]{1,128}$/;

/**
 * Reads the format a caller asked for, before routing: a `.json` suffix on any path (removed, so
 * routes match), `?format=json`, and `?callback=` for JSONP. Throws 400 for anything else.
 */
export function negotiateFormat(req: FormatRequest): void {
	const url = req.url ?? "/";
	const queryAt = url.indexOf("?");
	const path = queryAt < 0 ? url : url.slice(0, queryAt);
	const query = new URLSearchParams(queryAt < 0 ? "" : url.slice(queryAt + 1));

	if (/\.json$/i.test(path)) req.url = path.slice(0, -".json".length) + url.slice(path.length);

	const format = query.get("format");
	if (format !== null && format.toLowerCase() !== "json") {
		throw failures.field("format", "InvalidValue", `The format "${format}" is not supported: use json`);
	}

	const callback = query.get("callback");
	if (callback !== null) {
		if (!callbackName.test(callback)) {
			throw failures.field("callback", "InvalidValue", "callback may hold only letters, digits, _, . and $");
		}
		req.$jsonp = callback;
	}
}
