import { IncomingMessage, ServerResponse } from "node:http";
import { PlazaConfig } from "../../shared/config";
import { Operation, operationNamed } from "../../shared/catalogue";
import { failures } from "../../shared/errors";
import { requestShape } from "../description/shapes";
import { Failure } from "../errors";
import { setResponseCookies } from "../cookies";
import { isSecure } from "../client-address";
import { readBody } from "./read-body";
import { requestElement } from "./envelope";
import { paramsOf } from "./decode";
import { responseEnvelope } from "./encode";
import { faultEnvelope } from "./fault";
import { ns } from "./namespaces";
import { responseLayout } from "./xsd";
import { XmlElement } from "./xml-tree";
import { performOperation, recordPerformed } from "../perform";
import { GatewayRequest } from "../request";
import { refuseCrossSiteWrite } from "../cross-site";

interface SoapCall {
	element: XmlElement;
	operation: Operation;
}

export type SoapRequest = GatewayRequest & {
	/**
	 * The call the envelope holds, read once: by the handler, or by the failure writer when the call failed before it.
	 */
	$soapCall?: Promise<SoapCall>;
};

/** Whether a request is a SOAP call (POST /soap11), whose failures are written as SOAP. */
export function isSoapCall(req: IncomingMessage & { $rawUrl?: string; originalUrl?: string }): boolean {
	const path = (req.$rawUrl ?? req.originalUrl ?? req.url ?? "").split("?")[0];
	return req.method === "POST" && /^\/soap11\/?$/i.test(path);
}

/**
 * POST /soap11: the envelope's request element names the operation and its fields become the JSON route's params, so
 * validation, permissions, the cross-site check and session cookies work as on JSON. The answer is `<Op>Response`.
 */
export async function performSoapCall(config: PlazaConfig, req: SoapRequest, res: ServerResponse): Promise<void> {
	const { element, operation } = await soapCallOf(req, config);
	refuseCrossSiteWrite(operation, req, config);
	const params = paramsOf(element, requestShape(operation));
	const result = await performOperation(req.$ctx, req, operation, "soap", params);
	setResponseCookies(res, req.$ctx.meta, isSecure(req, config.trustProxy));
	const layout = responseLayout(operation);
	send(res, 200, responseEnvelope(layout.type, layout.wrap(result)));
	recordPerformed(req.$ctx, req, 200);
}

/**
 * A failed SOAP call, ServiceStack-style: the `<Op>Response` with its ResponseStatus, HTTP 200 and
 * the status in X-Status (SOAP clients read the body only of a 200). A Fault, with the status as the
 * HTTP status too, only when no operation can be named: an envelope too large, unreadable or
 * hostile, or an unknown operation.
 */
export async function sendSoapFailure(
	config: PlazaConfig,
	req: SoapRequest,
	res: ServerResponse,
	failure: Failure,
): Promise<void> {
	const call = await soapCallOf(req, config).catch(() => undefined);
	if (res.headersSent) return;
	res.setHeader("X-Status", String(failure.status));
	if (!call) return send(res, failure.status, faultEnvelope(failure));
	const layout = responseLayout(call.operation);
	send(res, 200, responseEnvelope(layout.type, { ResponseStatus: failure.responseStatus }, failure.status));
}

function soapCallOf(req: SoapRequest, config: PlazaConfig): Promise<SoapCall> {
	req.$soapCall ??= (async () => {
		if (req.body !== undefined || req.readableEnded) throw failures.invalidBody("Send the SOAP envelope as text/xml");
		// An upload's larger limit applies when SOAPAction names its operation up front.
		const announced = soapActionOf(req);
		const bytes = await readBody(req, bodyLimit(config, announced ? operationNamed(announced) : undefined));
		const element = requestElement(bytes);
		const operation = element.uri === ns.types || element.uri === "" ? operationNamed(element.local) : undefined;
		if (!operation) throw failures.notFound(`The operation {${element.uri}}${element.local}`);
		if (announced && operationNamed(announced) !== operation) {
			throw failures.invalidBody(`The SOAPAction names ${announced}, but the Body holds ${operation.name}`);
		}
		if (bytes.length > bodyLimit(config, operation)) throw failures.payloadTooLarge(bodyLimit(config, operation));
		return { element, operation };
	})();
	return req.$soapCall;
}

/** The operation name SOAPAction gives, when sent: `{types_namespace}/<Op>`, or the name alone. */
function soapActionOf(req: IncomingMessage): string | undefined {
	const header = req.headers.soapaction;
	const action = (Array.isArray(header) ? header[0] : (header ?? ""))
		.trim()
		.replace(/^"(.*)"$/, "$1")
		.trim();
	return action ? action.slice(action.lastIndexOf("/") + 1) : undefined;
}

function bodyLimit(config: PlazaConfig, operation: Operation | undefined): number {
	return Math.max(config.maxBodyBytes, operation?.maxBodyBytes ?? 0);
}

function send(res: ServerResponse, status: number, xml: string): void {
	res.statusCode = status;
	res.setHeader("Content-Type", "text/xml; charset=utf-8");
	res.end(xml);
}
