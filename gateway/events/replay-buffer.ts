/** An event as a gateway keeps it for replay: its id, its frame, and whom it may reach. */
export interface Replayable {
	id: number;
	keys: readonly string[];
	readers?: readonly string[];
	frame: string;
}

/** What a reconnecting stream missed: the events after its Last-Event-ID, or `reload` when the window no longer holds them. */
export type Missed = { events: Replayable[] } | { reload: true; windowStart: number };

/**
 * The events this gateway delivered lately (at most `max`, at most `maxAgeMs` old), in the order
 * they arrived, so that a stream reconnecting with Last-Event-ID gets what it missed. Ids are
 * stamped by the writer's node: the same event has the same id on every gateway.
 */
export class ReplayBuffer {
	private entries: Array<Replayable & { at: number }> = [];

	/** Ids before this one may have been missed by this gateway (it started, or dropped them since). */
	private windowStart: number;

	constructor(
		private readonly max: number,
		private readonly maxAgeMs: number,
		startId: number,
	) {
		this.windowStart = startId;
	}

	/** The newest id this gateway knows: where a new stream starts. */
	head(): number {
		return this.entries.at(-1)?.id ?? this.windowStart;
	}

	add(event: Replayable, now = Date.now()): void {
		this.entries.push({ ...event, at: now });
		this.trim(now);
	}

	/**
	 * The events after `lastId`: those that arrived after it when this gateway has it (exact), else
	 * those with a greater id (it came from another gateway: ids are near across nodes' clocks), or
	 * a reload when `lastId` is older than the window.
	 */
	since(lastId: number, now = Date.now()): Missed {
		this.trim(now);
		if (!Number.isSafeInteger(lastId) || lastId < this.windowStart) return { reload: true, windowStart: this.windowStart };
		let at = this.entries.length;
		while (at > 0 && this.entries[at - 1].id !== lastId) at--;
		return { events: at > 0 ? this.entries.slice(at) : this.entries.filter(e => e.id > lastId) };
	}

	private trim(now: number): void {
		let drop = Math.max(0, this.entries.length - this.max);
		while (drop < this.entries.length && now - this.entries[drop].at > this.maxAgeMs) drop++;
		if (drop === 0) return;
		this.windowStart = this.entries[drop - 1].id + 1;
		this.entries = this.entries.slice(drop);
	}
}
