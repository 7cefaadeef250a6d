import { Middleware, ServiceBroker, Transporters } from "moleculer";
import { TurnBatch } from "./turn-batch";

type Subscription = InstanceType<typeof Transporters.NATS>["subscriptions"][number];

/**
 * Moleculer's NATS transporter, with its queue-group subscriptions (the calls and events the bus
 * balances) changed without a gap. Moleculer renews them whenever this node's services change: it
 * unsubscribes from all, then subscribes again. A call that nats-server had already handed over
 * was then dropped unanswered (its caller waited for its timeout), and one published in between
 * found no subscriber on a node that is alone in its group. Here the new subscriptions are made
 * first, and the old ones drained (what was handed over is still served) only then. A stopping node
 * announces no services, so it drains every subscription before it stops serving.
 */
export class QueueGroupNats extends Transporters.NATS {
	private retiring: Subscription[] = [];
	private readonly outgoing = new TurnBatch<[string, Buffer]>(async packets => this.publishPackets(packets));

	/**
	 * Packets are published together once per turn of the event loop. The NATS client writes to its
	 * socket at the end of each task (a microtask), so every request a gateway took in one turn cost a
	 * write of its own; those writes were the gateway's largest self time under D1 CreatePost.
	 */
	override send(topic: string, data: Buffer): Promise<void> {
		// Not awaited: Moleculer goes on at once, as it did when the client only buffered the packet (publishing never fails).
		this.outgoing.add([topic, data]).catch(() => undefined);
		return Promise.resolve();
	}

	override async disconnect(): Promise<void> {
		await this.outgoing.flush();
		return super.disconnect();
	}

	private publishPackets(batch: Array<[string, Buffer]>): void {
		const client = this.client as { publish(topic: string, data: Buffer): void } | null;
		// The client refuses a publish only once closed, which is when this node stops (Moleculer has it
		// reconnect for ever, buffering meanwhile): a packet sent after that has nowhere to go.
		for (const [topic, data] of batch) {
			try {
				client?.publish(topic, data);
			} catch {
				// connection closed
			}
		}
	}

	/** Called by makeBalancedSubscriptions before it subscribes anew: keep the old ones until then. */
	override unsubscribeFromBalancedCommands(): Promise<void> {
		this.retiring.push(...this.subscriptions);
		this.subscriptions = [];
		return Promise.resolve();
	}

	override async makeBalancedSubscriptions(): Promise<void> {
		await super.makeBalancedSubscriptions();
		const retiring = this.retiring.splice(0);
		// A drain fails only when the connection is already closed, and then there is nothing to serve.
		await Promise.all(retiring.map(sub => sub.drain().catch(() => undefined)));
	}
}

/** The part of Moleculer's registry used here: it sends this node's INFO, renewing its queue groups first. */
interface Discoverer {
	sendLocalNodeInfo(): Promise<void>;
}

/**
 * Moleculer makes a node's queue-group subscriptions only with its first INFO, which it sends up to
 * a second (serviceChangedDebounceTime) after the node has started. Calls published meanwhile, such
 * as one from this node's own gateway to its own services, find no subscriber and wait for their
 * timeout. This sends the INFO, and so subscribes, before the broker counts as started (and /ready says so).
 */
export const queueGroupsBeforeStarted: Middleware = {
	name: "QueueGroupsBeforeStarted",
	async started(broker: ServiceBroker) {
		await (broker.registry as unknown as { discoverer: Discoverer }).discoverer.sendLocalNodeInfo();
	},
};
