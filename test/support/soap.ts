import * as soap from "soap";
import { ADMIN_KEY, Reply, TestPlaza } from "./plaza";

export const TYPES = "http://schemas.servicestack.net/types";
export const ARRAYS = "http://schemas.microsoft.com/2003/10/Serialization/Arrays";

/** The node `soap` package's client, built from Plaza's own WSDL URL, sending the given HTTP headers. */
export async function soapClient(plaza: TestPlaza, headers: Record<string, string> = {}): Promise<SoapClient> {
	const client = (await soap.createClientAsync(`${plaza.url}/soap11?wsdl`)) as unknown as SoapClient;
	for (const [name, value] of Object.entries(headers)) client.addHttpHeader(name, value);
	return client;
}

export const asAdmin = { Authorization: `Bearer ${ADMIN_KEY}` };

/** The parts of a generated client these tests use: `<Op>Async(args)` resolves to [result, rawResponse, …]. */
export interface SoapClient {
	addHttpHeader(name: string, value: string): void;
	lastResponseHeaders?: Record<string, string>;
	[operation: string]: unknown;
}

/** Calls an operation through the generated client; the result, and the response's X-Status (undefined on success). */
export async function call<T = Record<string, unknown>>(
	client: SoapClient,
	operation: string,
	args: Record<string, unknown> = {},
): Promise<{ result: T; status?: string; headers: Record<string, string> }> {
	const method = client[`${operation}Async`] as (args: Record<string, unknown>) => Promise<[T]>;
	if (typeof method !== "function") throw new Error(`The WSDL has no operation ${operation}`);
	const [result] = await method.call(client, args);
	const headers = client.lastResponseHeaders ?? {};
	return { result, status: headers["x-status"], headers };
}

/** A SOAP 1.1 envelope around a body element's XML. */
export function envelope(body: string, header = ""): string {
	return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">${header ? `<soap:Header>${header}</soap:Header>` : ""}<soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** POSTs raw XML to /soap11. */
export function postSoap(
	plaza: TestPlaza,
	xml: string,
	headers: Record<string, string> = {},
): Promise<Reply<undefined>> {
	return plaza.http<undefined>("POST", "/soap11", xml, { "Content-Type": "text/xml; charset=utf-8", ...headers });
}

const dashedGuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const wireDate = /^\/Date\((-?\d+)[+-]\d{4}\)\/$/;

/**
 * A record as either surface writes it, in one comparable form: GUIDs as 32 hex digits, timestamps
 * as epoch milliseconds, lists as arrays (SOAP's `{ItemName: [...]}` unwrapped), nothing for nulls
 * and empty lists (JSON writes [], SOAP clients read an empty list as null).
 */
export function comparable(value: unknown): unknown {
	if (value === null || value === undefined) return undefined;
	if (value instanceof Date) return value.getTime();
	if (Array.isArray(value)) return value.length ? value.map(comparable) : undefined;
	if (typeof value === "string") {
		if (dashedGuid.test(value)) return value.replace(/-/g, "").toLowerCase();
		if (isoDate.test(value)) return Date.parse(value);
		const wcf = wireDate.exec(value);
		return wcf ? Number(wcf[1]) : value;
	}
	if (typeof value !== "object") return value;
	const entries = Object.entries(value as Record<string, unknown>);
	if (entries.length === 1 && Array.isArray(entries[0][1])) return comparable(entries[0][1]);
	const out: Record<string, unknown> = {};
	for (const [k, v] of entries) {
		const c = comparable(v);
		if (c !== undefined) out[k] = c;
	}
	return out;
}
