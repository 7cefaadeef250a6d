import { IncomingMessage } from "node:http";
import { TLSSocket } from "node:tls";
import proxyAddr from "proxy-addr";
import { TrustProxy } from "../shared/config";

type Trust = (address: string, hop: number) => boolean;

const compiled = new WeakMap<string[], Trust>();

/**
 * Whom to believe among the addresses a request passed through (proxy-addr's rule, as Express
 * applies it): a hop count trusts that many hops from the socket's peer leftwards through
 * X-Forwarded-For; a list trusts those addresses and subnets.
 */
function trustOf(setting: TrustProxy): Trust {
	if (typeof setting === "number") return (_address, hop) => hop < setting;
	let trust = compiled.get(setting);
	if (!trust) compiled.set(setting, (trust = proxyAddr.compile(setting)));
	return trust;
}

/** Whether the socket's peer is a proxy we trust, so that its X-Forwarded-* headers are believed. */
export function fromTrustedProxy(req: IncomingMessage, setting: TrustProxy): boolean {
	return setting !== 0 && trustOf(setting)(req.socket.remoteAddress ?? "", 0);
}

/**
 * The client's address: the socket's peer, or, behind trusted proxies, the first address in
 * X-Forwarded-For counted from the right that is not one of them (never its client-written left end).
 */
export function clientAddress(req: IncomingMessage, setting: TrustProxy): string | undefined {
	if (setting === 0) return req.socket.remoteAddress;
	return proxyAddr(req, trustOf(setting));
}

/** Whether the request came over HTTPS (directly, or through a trusted proxy that says so). */
export function isSecure(req: IncomingMessage, setting: TrustProxy): boolean {
	return (
		(req.socket as TLSSocket).encrypted === true ||
		(fromTrustedProxy(req, setting) && req.headers["x-forwarded-proto"] === "https")
	);
}
