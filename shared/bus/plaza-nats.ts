import { Transporters } from "moleculer";
import { TurnBatch } from "./turn-batch";

/** The part of the NATS client used here (Moleculer's typings leave the client untyped). */
interface NatsClient {
	publish(topic: string, data: Buffer): void;
	subscribe(topic: string, options: { callback: (err: unknown, msg: { respond(): boolean }) => void }): unknown;
	request(topic: string, data: Uint8Array, options: { timeout: number }): Promise<unknown>;
}

/** Whether a node still holds its NATS connection: yes, no (nats-server says nobody listens), or no answer in time. */
export type Presence = "present" | "gone" | "unknown";

/**
 * Moleculer's NATS transporter, publishing once per turn of the event loop, with a presence probe: each node answers
 * on a subject of its own, and nats-server answers "no responders" the moment a node's connection closes (a SIGKILL).
 * The probe carries nothing: an outsider answering for a dead node only leaves the loss to the heartbeats.
 */
export class PlazaNats extends Transporters.NATS {
	private readonly outgoing = new TurnBatch<[string, Buffer]>(async packets => this.publishPackets(packets));

	/**
	 * Packets are published together once per turn: the NATS client writes to its socket at the end of each
	 * microtask, so that otherwise every request a gateway took in one turn would cost a socket write of its own.
	 */
	override send(topic: string, data: Buffer): Promise<void> {
		// Not awaited: Moleculer goes on at once, as it did when the client only buffered the packet (publishing never
		// fails).
		this.outgoing.add([topic, data]).catch(() => undefined);
		return Promise.resolve();
	}

	override async disconnect(): Promise<void> {
		await this.outgoing.flush();
		return super.disconnect();
	}

	override async makeSubscriptions(topics: Array<{ cmd: string; nodeID?: string }>): Promise<void> {
		await super.makeSubscriptions(topics);
		this.natsClient()?.subscribe(this.presenceTopic(this.nodeID), { callback: (_err, msg) => msg.respond() });
	}

	/** Asks nats-server whether `nodeID` still listens: "gone" only on its own "no responders". */
	async presenceOf(nodeID: string, timeoutMs: number): Promise<Presence> {
		const client = this.natsClient();
		if (!client) return "unknown";
		try {
			await client.request(this.presenceTopic(nodeID), new Uint8Array(0), { timeout: timeoutMs });
			return "present";
		} catch (err) {
			return (err as { code?: string }).code === "503" ? "gone" : "unknown";
		}
	}

	private presenceTopic(nodeID: string): string {
		return `${this.prefix}.PRESENCE.${nodeID}`;
	}

	private natsClient(): NatsClient | null {
		return this.client as NatsClient | null;
	}

	private publishPackets(batch: Array<[string, Buffer]>): void {
		const client = this.natsClient();
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
}
