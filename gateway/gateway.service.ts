import { Server } from "node:http";
import { ServiceSchema } from "moleculer";
import { PlazaConfig } from "../shared/config";
import { registerOperationMetrics } from "../shared/metrics";
import { HttpGateway } from "./http-gateway";

/**
 * The HTTP face of Plaza as a service of the broker: it opens its port once the services of its own
 * process are up (see plaza.ts), and at stop closes it and finishes the requests it accepted.
 */
export function gatewayService(config: PlazaConfig): ServiceSchema {
	let gateway: HttpGateway | undefined;
	return {
		name: "gateway",
		created() {
			registerOperationMetrics(this.broker);
		},
		async started() {
			gateway = new HttpGateway(config, this);
			(this as { server?: Server }).server = await gateway.listen(config.port);
		},
		async stopped() {
			await gateway?.close();
		},
	};
}
