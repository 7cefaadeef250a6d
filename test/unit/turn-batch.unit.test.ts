import { ServiceBroker } from "moleculer";
import { batchedBroadcast, itemsOf, TurnBatch } from "../../shared/bus/turn-batch";

const nextTurn = () => new Promise(resolve => setImmediate(resolve));

describe("a turn batch", () => {
	test("what is added in one turn is sent once, in order, and every add settles with that send", async () => {
		const sent: number[][] = [];
		const batch = new TurnBatch<number>(async items => void sent.push(items));
		const adds = [batch.add(1), batch.add(2), batch.add(3)];
		expect(sent).toEqual([]);
		await Promise.all(adds);
		expect(sent).toEqual([[1, 2, 3]]);
	});

	test("a later turn's items leave in a send of their own", async () => {
		const sent: number[][] = [];
		const batch = new TurnBatch<number>(async items => void sent.push(items));
		const first = batch.add(1);
		await nextTurn();
		const second = batch.add(2);
		await Promise.all([first, second]);
		expect(sent).toEqual([[1], [2]]);
	});

	test("flush sends what is pending at once, and the turn's end sends nothing again", async () => {
		const sent: number[][] = [];
		const batch = new TurnBatch<number>(async items => void sent.push(items));
		const added = batch.add(1);
		await batch.flush();
		expect(sent).toEqual([[1]]);
		await added;
		await nextTurn();
		expect(sent).toEqual([[1]]);
	});

	test("a failed send fails every add of its turn, and the next turn sends again", async () => {
		let fail = true;
		const sent: string[][] = [];
		const batch = new TurnBatch<string>(async items => {
			if (fail) throw new Error("the bus is down");
			sent.push(items);
		});
		const results = await Promise.allSettled([batch.add("a"), batch.add("b")]);
		expect(results.map(r => r.status)).toEqual(["rejected", "rejected"]);
		fail = false;
		await batch.add("c");
		expect(sent).toEqual([["c"]]);
	});
});

describe("a batched broadcast", () => {
	test("each broker broadcasts its own turn's items as one event; a receiver reads them, and nothing from a malformed one", async () => {
		const brokers = [0, 1].map(() => {
			const sent: Array<[string, unknown]> = [];
			return {
				sent,
				broker: {
					broadcast: async (event: string, payload: unknown) => void sent.push([event, payload]),
				} as unknown as ServiceBroker,
			};
		});
		const send = batchedBroadcast<{ n: number }>("plaza.test");
		await Promise.all([
			send(brokers[0].broker, { n: 1 }),
			send(brokers[1].broker, { n: 2 }),
			send(brokers[0].broker, { n: 3 }),
		]);
		expect(brokers[0].sent).toEqual([["plaza.test", { items: [{ n: 1 }, { n: 3 }] }]]);
		expect(brokers[1].sent).toEqual([["plaza.test", { items: [{ n: 2 }] }]]);
		expect(itemsOf(brokers[0].sent[0][1] as { items: Array<{ n: number }> })).toEqual([{ n: 1 }, { n: 3 }]);
		expect(itemsOf(undefined)).toEqual([]);
		expect(itemsOf({ items: "nope" } as unknown as { items: unknown[] })).toEqual([]);
	});
});
