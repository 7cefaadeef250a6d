import { ServiceBroker } from "moleculer";
import { canFlush, transporterWithClient } from "../moleculer-internals";

/** How long a barrier waits for the bus at most: past it (the bus down, a node stalled) the read goes on as before. */
const maxWaitMs = 250;

/**
 * A wait after which every packet routed to this node when it began has been handled here: nats-server writes to each
 * node on its own, so a read sent elsewhere right after a writer's answer could beat the writer's announcement. A NATS
 * flush (the PONG comes behind the rest) and then a turn of the event loop close that gap. The waits of one turn share
 * one flush sent at its end (a PING already sent covers nothing routed after it); a later turn's wait sends its own,
 * not awaiting the earlier PONG. Undefined in one process; made with the broker, its client read at each flush.
 */
export function busBarrier(broker: ServiceBroker): (() => Promise<void>) | undefined {
	// NATS only (its client's flush): over another transporter a gateway handles its requests without one.
	const transporter = transporterWithClient(broker);
	if (!transporter) return undefined;
	let gathering: Promise<void> | undefined;
	const flush = async (): Promise<void> => {
		let timer: NodeJS.Timeout | undefined;
		const gaveUp = new Promise<void>(resolve => (timer = setTimeout(resolve, maxWaitMs)));
		const client = transporter.client;
		if (canFlush(client)) await Promise.race([client.flush().catch(() => undefined), gaveUp]);
		clearTimeout(timer);
		await new Promise(resolve => setImmediate(resolve));
	};
	return () =>
		(gathering ??= new Promise<void>(resolve => setImmediate(resolve)).then(() => {
			gathering = undefined;
			return flush();
		}));
}
