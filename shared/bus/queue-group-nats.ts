import { Transporters } from "moleculer";

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
