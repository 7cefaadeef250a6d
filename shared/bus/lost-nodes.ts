import { Middleware, ServiceBroker } from "moleculer";
import { PlazaNats } from "./plaza-nats";

export interface LostNodeTiming {
	/** How often the calls in flight are looked at. */
	everyMs: number;
	/** How long a call goes unanswered before its node's presence is asked. */
	overdueMs: number;
	/** How long a presence probe may take; past it, nothing is concluded. */
	probeTimeoutMs: number;
}

export const defaultLostNodeTiming: LostNodeTiming = { everyMs: 200, overdueMs: 400, probeTimeoutMs: 1000 };

/**
 * A node lost with calls in flight costs them about a second, not the request timeout: a call unanswered for a while
 * asks nats-server whether its node is still connected, and a gone node leaves the registry, which rejects its calls
 * at once (a read is retried elsewhere, a write answers 504 OutcomeUnknown) and sends the next ones elsewhere.
 */
export function lostNodes(transporter: PlazaNats, timing: LostNodeTiming = defaultLostNodeTiming): Middleware {
	let timer: NodeJS.Timeout | undefined;
	return {
		name: "LostNodes",
		async started(broker: ServiceBroker) {
			const firstSeen = new Map<string, number>();
			const probing = new Set<string>();
			const probe = async (nodeID: string) => {
				probing.add(nodeID);
				try {
					if ((await transporter.presenceOf(nodeID, timing.probeTimeoutMs)) === "gone")
						broker.registry.nodes.disconnected(nodeID, true);
				} finally {
					probing.delete(nodeID);
				}
			};
			timer = setInterval(() => {
				const now = Date.now();
				const pending = broker.transit?.pendingRequests ?? new Map<string, { nodeID?: string | null }>();
				for (const id of firstSeen.keys()) if (!pending.has(id)) firstSeen.delete(id);
				const overdue = new Set<string>();
				for (const [id, request] of pending) {
					const seen = firstSeen.get(id);
					if (seen === undefined) firstSeen.set(id, now);
					else if (request.nodeID && now - seen >= timing.overdueMs) overdue.add(request.nodeID);
				}
				for (const nodeID of overdue)
					if (!probing.has(nodeID))
						probe(nodeID).catch((err: unknown) => broker.logger.warn(`Could not take out lost node '${nodeID}'`, err));
			}, timing.everyMs);
			timer.unref();
		},
		async stopped() {
			clearInterval(timer);
		},
	};
}
