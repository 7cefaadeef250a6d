import { ServiceBroker } from "moleculer";
import { canFlush, transporterWithClient } from "../moleculer-internals";

/** How long a barrier waits for the bus at most: past it (the bus down, a node stalled) the read goes on as before. */
const maxWaitMs = 250;

/**
 * A wait after which every packet the bus had routed to this node when the wait began has been
 * handled here. A writer announces its change (an invalidation, a domain's new generation) before
 * it answers, so nats-server has the announcement queued for every node before the writer's answer
 * goes out; but it writes to each node's connection on its own, and on a loaded machine a read sent
 * to another gateway right after the answer could get there first. A NATS flush (PING, then the
 * server's PONG, queued behind whatever it had for this node) closes that gap; a turn of the event
 * loop after it lets the handlers of what came before the PONG finish. The waits begun in one turn of
 * the event loop share one flush, sent at the turn's end (after every one of them began: a PING
 * already sent does not answer for what was routed after it); a wait begun in a later turn gets a
 * flush of its own then, without waiting for the earlier PONG (which made a wait last up to two round
 * trips to nats-server: D1 CreatePost, six interleaved runs, 825-1,248 req/s before, 1,135-1,502
 * after). Undefined in one process, where events are local.
 * Made with the broker: its transporter exists from then, and its client is read at each flush.
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
