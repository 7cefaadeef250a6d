import { Logger, Middleware, ServiceBroker } from "moleculer";
import { DropReason, packetSeal, SealOptions } from "./seal";
import { TransporterReceive, TransporterSend, wrappingMiddleware } from "../moleculer-internals";

/**
 * Seals every packet a node puts on the bus and opens (or drops, with a warning) every one it takes off, so that
 * ctx.meta.user, ctx.caller and params arrive as a cluster member sent them. Not Transmit.Encryption, which is
 * unauthenticated and replayable (decision 0005). Clocks must agree (NTP): a packet over 30 s old or 5 s ahead is
 * dropped.
 */
export function sealedTransit(secret: string, options: Partial<SealOptions> = {}): Middleware {
	const seal = packetSeal(secret, options);
	let broker: ServiceBroker;
	let warn: (reason: DropReason, cmd: string) => void;
	return wrappingMiddleware({
		name: "PlazaSealedTransit",
		created(created: ServiceBroker) {
			broker = created;
			warn = rateLimitedWarning(created.getLogger("bus"));
		},
		transporterSend(next: TransporterSend): TransporterSend {
			return (topic, data, meta) =>
				next(topic, seal.seal(meta.packet?.type ?? topic, meta.packet?.target ?? undefined, data), meta);
		},
		transporterReceive(next: TransporterReceive): TransporterReceive {
			return (cmd, data, s) => {
				const opened = seal.open(cmd, broker.nodeID, data);
				if (opened.ok) return next(cmd, opened.data, s);
				warn(opened.reason, cmd);
				return undefined;
			};
		},
	});
}

/**
 * At most one warning per reason every 10 s, counting the drops in between: a flood of forgeries must not flood the
 * log.
 */
function rateLimitedWarning(logger: Logger, everyMs = 10_000): (reason: DropReason, cmd: string) => void {
	const last = new Map<DropReason, { at: number; suppressed: number }>();
	return (reason, cmd) => {
		const now = Date.now();
		const entry = last.get(reason);
		if (entry && now - entry.at < everyMs) {
			entry.suppressed += 1;
			return;
		}
		const suppressed = entry?.suppressed ?? 0;
		last.set(reason, { at: now, suppressed: 0 });
		logger.warn(
			{ event: "bus-packet-dropped", reason, packet: cmd, droppedSinceLastWarning: suppressed },
			`Dropped a ${cmd} packet from the bus: ${reason}${suppressed ? ` (and ${suppressed} more since the last warning)` : ""}`,
		);
	};
}
