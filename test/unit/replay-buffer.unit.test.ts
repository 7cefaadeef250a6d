import { ReplayBuffer } from "../../gateway/events/replay-buffer";

const event = (id: number) => ({ id, type: "Post", keys: ["k"], frame: () => `frame ${id}` });

describe("the replay buffer of Server Events", () => {
	test("keeps the newest `max` events, in order, across many times its size", () => {
		const buffer = new ReplayBuffer(100, 60_000, 0);
		for (let id = 1; id <= 1_050; id++) buffer.add(event(id), 1_000);
		expect(buffer.head()).toBe(1_050);
		const missed = buffer.since(1_000, 1_000);
		expect("events" in missed && missed.events.map(e => e.id)).toEqual(Array.from({ length: 50 }, (_, i) => 1_001 + i));
		// 950 fell out of the window: a stream that last saw it must reload; 951 is the oldest kept.
		expect(buffer.since(949, 1_000)).toEqual({ reload: true, windowStart: 951 });
		const fromOldest = buffer.since(950, 1_000);
		expect("events" in fromOldest && fromOldest.events.length).toBe(100);
	});

	test("drops events older than its age, and a stream that saw the newest misses nothing", () => {
		const buffer = new ReplayBuffer(100, 1_000, 0);
		for (let id = 1; id <= 10; id++) buffer.add(event(id), id * 100);
		expect(buffer.since(5, 1_650)).toEqual({ reload: true, windowStart: 7 });
		expect(buffer.since(10, 1_650)).toEqual({ events: [] });
		expect(buffer.head()).toBe(10);
		// Everything aged out: a stream that saw the last event, or starts now, has missed nothing.
		expect(buffer.since(10, 60_000)).toEqual({ events: [] });
		expect(buffer.since(buffer.head(), 60_000)).toEqual({ events: [] });
		expect(buffer.since(9, 60_000)).toEqual({ reload: true, windowStart: 11 });
	});
});
