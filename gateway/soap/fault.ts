import { ResponseStatus as ResponseStatusRecord } from "../../shared/records/common";
import { RecordShape, shapeOf } from "../description/shapes";
import { Failure } from "../errors";
import { envelope, writeRecord } from "./encode";
import { faultCodes } from "./envelope";
import { ns } from "./namespaces";
import { escapeText } from "./xml";

/**
 * A SOAP 1.1 Fault, for a request that names no operation Plaza could answer in its own
 * `<Op>Response`: faultcode Client (the sender's fault), Server, VersionMismatch or MustUnderstand;
 * the ResponseStatus in the detail.
 */
export function faultEnvelope(failure: Failure): string {
	const status = failure.responseStatus;
	const code = faultCodes.has(status.ErrorCode) ? status.ErrorCode : failure.status >= 500 ? "Server" : "Client";
	const detail: string[] = [`<ResponseStatus xmlns="${ns.types}">`];
	writeRecord(detail, shapeOf(ResponseStatusRecord, "ResponseStatus") as RecordShape, { ...status });
	detail.push("</ResponseStatus>");
	return envelope(
		"",
		`<soap:Fault><faultcode>soap:${code}</faultcode><faultstring>${escapeText(status.Message)}</faultstring><detail>${detail.join("")}</detail></soap:Fault>`,
	);
}
