import { ServiceBroker } from "moleculer";

/**
 * Items added during one turn of the event loop, sent together on the next: a commit group answers
 * its writes in one turn, so their announcements leave as one packet instead of one each. Every
 * `add` of a turn settles with that turn's one `send`.
 */
export class TurnBatch<T> {
	private pending: T[] = [];

	private sent: Promise<void> | undefined;

	constructor(private readonly send: (items: T[]) => Promise<unknown>) {}

	add(item: T): Promise<void> {
		this.pending.push(item);
		this.sent ??= new Promise<void>(resolve => setImmediate(resolve)).then(() => this.flush());
		return this.sent;
	}

	/** Sends what is pending now, without waiting for the turn to end (a node stopping). */
	flush(): Promise<void> {
		const items = this.pending;
		this.pending = [];
		this.sent = undefined;
		return items.length ? this.send(items).then(() => undefined) : Promise.resolve();
	}
}

/** The payload of a batched broadcast: the items in the order they were added. */
export interface Batch<T> {
	items: T[];
}

/**
 * A broadcast of `event` that carries, per node, what was added in one turn: `send(broker, item)`
 * settles once the item has left with its turn's batch. Receivers read it with `itemsOf`.
 */
export function batchedBroadcast<T>(event: string): (broker: ServiceBroker, item: T) => Promise<void> {
	const batches = new WeakMap<ServiceBroker, TurnBatch<T>>();
	return (broker, item) => {
		let batch = batches.get(broker);
		if (!batch) {
			batch = new TurnBatch(items => broker.broadcast<Batch<T>>(event, { items }));
			batches.set(broker, batch);
		}
		return batch.add(item);
	};
}

/**
 * The items of a batch that reached this node (none when it is malformed: the bus is sealed, but the check costs
 * nothing).
 */
export function itemsOf<T>(batch: Batch<T> | undefined): T[] {
	return Array.isArray(batch?.items) ? batch.items : [];
}
