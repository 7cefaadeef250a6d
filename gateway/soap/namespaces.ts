/** The XML namespaces of SOAP 1.1 and of ServiceStack's WSDL (SPEC.md §4.3). */
export const ns = {
	/** {types_namespace}: every request, response and record. */
	types: "http://schemas.servicestack.net/types",
	/** WCF's primitive types: guid, char, duration. */
	serialization: "http://schemas.microsoft.com/2003/10/Serialization/",
	/** WCF's lists and dictionaries of primitives: ArrayOfstring, ArrayOfKeyValueOfstringstring. */
	arrays: "http://schemas.microsoft.com/2003/10/Serialization/Arrays",
	envelope: "http://schemas.xmlsoap.org/soap/envelope/",
	envelope12: "http://www.w3.org/2003/05/soap-envelope",
	xsi: "http://www.w3.org/2001/XMLSchema-instance",
	xs: "http://www.w3.org/2001/XMLSchema",
	wsdl: "http://schemas.xmlsoap.org/wsdl/",
	wsdlSoap: "http://schemas.xmlsoap.org/wsdl/soap/",
	soapHttp: "http://schemas.xmlsoap.org/soap/http",
} as const;
