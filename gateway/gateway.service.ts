import { Server } from "node:http";
import { AddressInfo } from "node:net";
import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../shared/config";
import { registerOperationMetrics } from "../shared/metrics";
import { HttpGateway } from "./http-gateway";
import { StreamEvent, streamEventName } from "../shared/streams/stream-event";
import { applyInvalidation } from "../shared/cache/invalidation";
import { Batch, itemsOf } from "../shared/bus/turn-batch";
import { onReaderScopeChange, readerScope } from "../services/posts/reader-scope";

/** What plaza.ts calls once the broker has started: the gateway opens its port only then. */
export interface GatewayPort {
	openPort(): Promise<void>;
}

/**
 * The HTTP face of Plaza as a service of the broker: it opens its port once the broker has started
 * and this node is announced to the others (see openPort), and at stop closes it and finishes the
 * requests it accepted.
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
		},
		async stopped() {
			await gateway?.close();
		},
		methods: {
			/**
			 * Other nodes send their broadcasts (cache invalidations, stream events) only to nodes they know:
			 * this node is announced first (Moleculer would wait a second), so no request it serves can miss one.
			 */
			async openPort() {
				if (!gateway) return;
				if (this.broker.transit) await this.broker.registry.discoverer.sendLocalNodeInfo();
				const server = await gateway.listen(config.port);
				(this as { server?: Server }).server = server;
				// The one start-up line at the default level: where Plaza answers and what to open first.
				const base = `http://localhost:${(server.address() as AddressInfo).port}`;
				const pages = { url: base, apiPage: `${base}/swagger-ui/`, metadata: `${base}/metadata` };
				this.logger.info(
					{ event: "ready", ...pages },
					`Plaza ready on ${pages.url} — API page ${pages.apiPage}, metadata ${pages.metadata}`,
				);
			},
		},
	};
}
