import { IncomingMessage } from "node:http";
import { TrustProxy } from "../shared/config";
import { fromTrustedProxy, isSecure } from "./client-address";

const hostHeader = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The URL the client reached Plaza at, for addresses in the descriptions; an odd Host header counts as localhost. */
export function baseUrlOf(req: IncomingMessage, trustProxy: TrustProxy): string {
	// The last value: the one the proxy next to us wrote.
	const forwarded = fromTrustedProxy(req, trustProxy) ? req.headers["x-forwarded-host"] : undefined;
	const host =
		(typeof forwarded === "string" ? forwarded.split(",").pop()!.trim() : undefined) ?? req.headers.host ?? "";
	return `${isSecure(req, trustProxy) ? "https" : "http"}://${hostHeader.test(host) ? host : "localhost"}`;
}
