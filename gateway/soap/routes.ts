import { ServerResponse } from "node:http";
import { PlazaConfig } from "../../shared/config";
import { catalogue } from "../../shared/catalogue";
import { baseUrlOf } from "../base-url";
import { performSoapCall, SoapRequest } from "./handler";
import { wsdlFor } from "./wsdl";

type AliasHandler = (req: SoapRequest, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * The SOAP 1.1 endpoint (PRODUCT.md §6): the WSDL at GET /soap11, /soap11?wsdl and /soap11/wsdl,
 * calls at POST /soap11. A failure goes to `next`, and so to the gateway's one error writer.
 */
export function soapAliases(config: PlazaConfig): Record<string, AliasHandler> {
	let wsdl: ((address: string) => string) | undefined;
	const sendWsdl: AliasHandler = (req, res) => {
		wsdl ??= wsdlFor(catalogue);
		res.statusCode = 200;
		res.setHeader("Content-Type", "text/xml; charset=utf-8");
		res.end(wsdl(`${baseUrlOf(req, config.trustProxy)}/soap11`));
	};
	return {
		"GET /soap11": sendWsdl,
		"GET /soap11/wsdl": sendWsdl,
		"POST /soap11"(req, res, next) {
			performSoapCall(config, req, res).catch(next);
		},
	};
}
