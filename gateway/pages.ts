import { ServiceBroker } from "moleculer";
import { PlazaConfig } from "../shared/config";
import { callerOf, isAdmin } from "../shared/caller";
import { failures } from "../shared/errors";
import { isReady } from "../shared/probes";
import { currentPrometheusText } from "../shared/metrics";
import { operationListing } from "./routes";
import { sendJson } from "./respond";
import { PageHandler } from "./request";
import { soapAliases } from "./soap/routes";
import { descriptionAliases } from "./description/routes";
import { nativeTypesAliases } from "./native-types/routes";

/**
 * The gateway's own routes beside the catalogue's: the front door, health, readiness, the listing, metrics, SOAP, the
 * description.
 */
export function gatewayPages(config: PlazaConfig, broker: ServiceBroker): Record<string, PageHandler> {
	return {
		// Someone who opens Plaza's address in a browser lands on the API page (which links the metadata pages).
		"GET /"(_req, res) {
			res.statusCode = 302;
			res.setHeader("Location", "/swagger-ui/");
			res.end();
		},
		"GET /health"(req, res) {
			sendJson(req, res, 200, { Status: "Up" });
		},
		"GET /operations"(req, res) {
			sendJson(req, res, 200, operationListing());
		},
		"GET /ready"(req, res) {
			const ready = isReady(broker);
			sendJson(req, res, ready ? 200 : 503, { Status: ready ? "Ready" : "NotReady" });
		},
		// Prometheus text for the administrator's key (scrapers send it as a Bearer token); the probe port serves it openly
		// inside.
		"GET /metrics"(req, res, next) {
			const caller = callerOf(req.$ctx);
			if (!isAdmin(caller)) return next(caller ? failures.forbidden() : failures.unauthorized());
			currentPrometheusText(broker).then(text => {
				res.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
				res.end(text ?? "");
			}, next);
		},
		...soapAliases(config),
		...descriptionAliases(),
		...nativeTypesAliases(config),
	};
}
