import { Server } from "node:http";
import { AddressInfo } from "node:net";
import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../shared/config";
import { registerOperationMetrics } from "../shared/metrics";
import { HttpGateway } from "./http-gateway";
import { StreamEvent, streamEventName } from "../shared/streams/stream-event";
import { applyInvalidation } from "../shared/cache/invalidation";
import { Batch, itemsOf } from "../shared/bus/turn-batch";
import { onReaderScopeChange, readerScope } from "../services/posts/post-events";

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
		events: {
			// Every gateway hears what happened (broadcast) and writes it to the streams it reaches.
			[streamEventName](ctx: Context<Batch<StreamEvent>>) {
				const events = itemsOf(ctx.params);
				// What they make stale first (kept lists a new post joins): a stream's client may read the API on hearing them.
				for (const event of events) if (event?.drops) applyInvalidation(this.broker, event.drops);
				for (const event of events) gateway?.streams.deliver(event);
			},
		},
		async started() {
			gateway = new HttpGateway(config, this, { scopeOf: readerScope, onChange: onReaderScopeChange });
			const server = await gateway.listen(config.port);
			(this as { server?: Server }).server = server;
			// The one start-up line at the default level: where Plaza answers and what to open first.
			const base = `http://localhost:${(server.address() as AddressInfo).port}`;
			const pages = { url: base, apiPage: `${base}/swagger-ui/`, metadata: `${base}/metadata` };
			this.logger.info({ event: "ready", ...pages }, `Plaza ready on ${pages.url} — API page ${pages.apiPage}, metadata ${pages.metadata}`);
		},
		async stopped() {
			await gateway?.close();
		},
	};
}
