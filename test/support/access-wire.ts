import { Operation } from "../../shared/catalogue";
import { ADMIN_KEY, TestPlaza } from "./plaza";
import { ARRAYS, envelope, TYPES } from "./soap";

/**
 * How the access-matrix and hostile-input suites write one request of an operation on each surface
 * a caller can use: its REST route, the generic route (/json/reply), an XML body, SOAP 1.1.
 */
export type AccessSurface = "rest" | "generic" | "xml" | "soap";

/** The callers of the access matrix: no credentials, a user who owns nothing named, the owner, the administrator. */
/**
 * Who calls: nobody, another user, the owner by session, by bearer token, by an unlimited API key and by one limited
 * to a scope no operation of the matrix passes with (`apikeys:read`: its two operations need a person or an admin),
 * and the administrator's key.
 */
export type Caller = "anonymous" | "stranger" | "owner" | "owner token" | "owner key" | "narrow key" | "admin";

/** What came back: the status (SOAP's X-Status when it answers 200 with a failure) and the body's text. */
export interface Answer {
	status: number;
	text: string;
}

/** A signed-in caller's headers: X-ss-id is not subject to the cross-site rules a cookie is. */
export const sessionHeaders = (token: string): Record<string, string> => ({ "X-ss-id": token });
export const adminHeaders: Record<string, string> = { Authorization: `Bearer ${ADMIN_KEY}` };

/** A scalar as wire text (lists and records are written by their callers). */
const scalarText = (value: unknown) => String(value);

/** Text as XML character data; characters XML cannot hold go as character references, which a parser must refuse. */
export function xmlText(text: string): string {
	return text
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(
			// eslint-disable-next-line no-control-regex -- escaping control characters is the point
			/[\0-\x08\x0B\x0C\x0E-\x1F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
			c => `&#x${c.charCodeAt(0).toString(16)};`,
		);
}

function xmlName(name: string): string {
	const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, "");
	return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** A field as a DataContract element: lists as items in the Arrays namespace, records as elements, null as xsi:nil. */
export function xmlOf(name: string, value: unknown): string {
	const tag = xmlName(name);
	if (value === null || value === undefined)
		return `<${tag} xmlns:i="http://www.w3.org/2001/XMLSchema-instance" i:nil="true"/>`;
	if (Array.isArray(value))
		return `<${tag}>${value.map(item => xmlOf("string", item).replace(/^<string/, `<string xmlns="${ARRAYS}"`)).join("")}</${tag}>`;
	if (typeof value === "object")
		return `<${tag}>${Object.entries(value)
			.map(([k, v]) => xmlOf(k, v))
			.join("")}</${tag}>`;
	return `<${tag}>${xmlText(scalarText(value))}</${tag}>`;
}

/** The request DTO as XML: `<CreatePost xmlns="…/types">…</CreatePost>` (an XML body, or a SOAP Body's content). */
export function requestXml(op: Operation, params: Record<string, unknown>): string {
	return `<${op.name} xmlns="${TYPES}">${Object.entries(params)
		.map(([k, v]) => xmlOf(k, v))
		.join("")}</${op.name}>`;
}

export const soapEnvelopeOf = (op: Operation, params: Record<string, unknown>) => envelope(requestXml(op, params));

/** A query string of scalar and list fields (lists as "a,b", as the list type reads them). */
function queryOf(params: Record<string, unknown>): string {
	const query = new URLSearchParams();
	for (const [k, v] of Object.entries(params))
		if (v !== undefined && v !== null) query.set(k, Array.isArray(v) ? v.join(",") : scalarText(v));
	const text = query.toString();
	return text ? `?${text}` : "";
}

/**
 * The operation's REST request: its first route, fields in `:Field` in the path, the rest in the query (GET, DELETE) or
 * a JSON body.
 */
function restRequest(
	op: Operation,
	params: Record<string, unknown>,
	routeIndex = 0,
): { method: string; path: string; body?: string } {
	const route = op.routes[routeIndex];
	const rest = { ...params };
	const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
		const value = rest[name];
		delete rest[name];
		return encodeURIComponent(scalarText(value));
	});
	if (route.method === "GET" || route.method === "DELETE") return { method: route.method, path: path + queryOf(rest) };
	return { method: route.method, path, body: JSON.stringify(rest) };
}

/** Sends one request of an operation on a surface with the caller's headers. */
export async function sendOn(
	plaza: TestPlaza,
	surface: AccessSurface,
	headers: Record<string, string>,
	op: Operation,
	params: Record<string, unknown>,
	routeIndex = 0,
): Promise<Answer> {
	switch (surface) {
		case "rest": {
			const { method, path, body } = restRequest(op, params, routeIndex);
			const reply = await plaza.http<unknown>(
				method,
				path,
				body,
				body ? { ...headers, "Content-Type": "application/json" } : headers,
			);
			return { status: reply.status, text: reply.text };
		}
		case "generic": {
			const reply = op.reads
				? await plaza.http<unknown>("GET", `/json/reply/${op.name}${queryOf(params)}`, undefined, headers)
				: await plaza.http<unknown>("POST", `/json/reply/${op.name}`, JSON.stringify(params), {
						...headers,
						"Content-Type": "application/json",
					});
			return { status: reply.status, text: reply.text };
		}
		case "xml": {
			const reply = await plaza.http<unknown>("POST", `/json/reply/${op.name}`, requestXml(op, params), {
				...headers,
				"Content-Type": "application/xml",
			});
			return { status: reply.status, text: reply.text };
		}
		case "soap": {
			const reply = await plaza.http<unknown>("POST", "/soap11", soapEnvelopeOf(op, params), {
				...headers,
				"Content-Type": "text/xml; charset=utf-8",
			});
			return { status: Number(reply.headers.get("X-Status") ?? reply.status), text: reply.text };
		}
	}
}
