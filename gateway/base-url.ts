import { IncomingMessage } from "node:http";
import { isSecure } from "./identify";

const hostHeader = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The URL the client reached Plaza at, for addresses in the descriptions; an odd Host header counts as localhost. */
export function baseUrlOf(req: IncomingMessage, trustProxy: boolean): string {
	const forwarded = trustProxy ? req.headers["x-forwarded-host"] : undefined;
	const host = (typeof forwarded === "string" ? forwarded.split(",")[0].trim() : undefined) ?? req.headers.host ?? "";
	return `${isSecure(req, trustProxy) ? "https" : "http"}://${hostHeader.test(host) ? host : "localhost"}`;
}
