/** The Content-Type of every XML answer. */
export const xmlContentType = "application/xml; charset=utf-8";

/** Whether a media type (of Content-Type or Accept) is plain XML; SOAP 1.2's application/soap+xml is not. */
export function isXmlType(mediaType: string | undefined): boolean {
	return /^\s*(application|text)\/xml\s*(;|$)/i.test(mediaType ?? "");
}
