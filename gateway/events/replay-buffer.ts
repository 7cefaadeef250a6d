/** An event as a gateway keeps it for replay: its id, its frame, and whom it may reach. */
export interface Replayable {
	id: number;
	type: string;
	keys: readonly string[];
	readers?: readonly string[];
	authors?: readonly string[];
	/** Rendered at its first use: most events reach no stream of a given gateway and are never replayed. */
	frame: () => string;
}

/**
 * What a reconnecting stream missed: the events after its Last-Event-ID, or `reload` when the window no longer holds
 * them.
 */
export type Missed = { events: Replayable[] } | { reload: true; windowStart: number };

/**
 * The events this gateway delivered lately (at most `max`, at most `maxAgeMs` old), in the order
 * they arrived, so that a stream reconnecting with Last-Event-ID gets what it missed. Ids are
 * stamped by the writer's node: the same event has the same id on every gateway.
 */
export class ReplayBuffer {
	/** Oldest first; those before `first` are dropped already (cut off in bulk, not one by one). */
	private entries: Array<Replayable & { at: number }> = [];

	private first = 0;

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
		return this.entries.length > this.first ? this.entries[this.entries.length - 1].id : this.windowStart;
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
		// The last event dropped (windowStart − 1) is fine: everything after it is here.
		if (!Number.isSafeInteger(lastId) || lastId < this.windowStart - 1)
			return { reload: true, windowStart: this.windowStart };
		let at = this.entries.length;
		while (at > this.first && this.entries[at - 1].id !== lastId) at--;
		return {
			events: at > this.first ? this.entries.slice(at) : this.entries.slice(this.first).filter(e => e.id > lastId),
		};
	}

	private trim(now: number): void {
		let first = Math.max(this.first, this.entries.length - this.max);
		while (first < this.entries.length && now - this.entries[first].at > this.maxAgeMs) first++;
		if (first === this.first) return;
		this.windowStart = this.entries[first - 1].id + 1;
		this.first = first;
		// Copied once half of it is dropped, so that a full buffer costs O(1) per event, not a copy of `max` entries.
		if (first * 2 >= this.entries.length) {
			this.entries = this.entries.slice(first);
			this.first = 0;
		}
	}
}
