import { TurnBatch } from "../../shared/streams/turn-batch";

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
