import { ServiceBroker } from "moleculer";
import { busBarrier } from "../../shared/bus/bus-barrier";

/** A broker stand-in whose NATS client answers each flush when the test says. */
function brokerWithClient() {
	const pongs: Array<() => void> = [];
	const client = { flush: () => new Promise<void>(resolve => pongs.push(resolve)) };
	const broker = { transit: { tx: { client } } } as unknown as ServiceBroker;
	return { wait: busBarrier(broker)!, pongs };
}

const settled = async (promise: Promise<void>) => {
	let done = false;
	promise.then(
		() => (done = true),
		() => undefined,
	);
	for (let i = 0; i < 3; i++) await new Promise(resolve => setImmediate(resolve));
	return done;
};

describe("the bus barrier", () => {
	test("is nothing in one process", () => {
		expect(busBarrier({ transit: undefined } as unknown as ServiceBroker)).toBeUndefined();
	});

	test("a wait ends once the server has answered a flush sent after it began, not before", async () => {
		const { wait, pongs } = brokerWithClient();
		const first = wait();
		// The PING leaves at the end of the turn the wait began in.
		expect(pongs).toHaveLength(0);
		expect(await settled(first)).toBe(false);
		expect(pongs).toHaveLength(1);
		pongs[0]();
		expect(await settled(first)).toBe(true);
	});

	test("waits begun in one turn share one flush; a wait begun after its PING left gets its own at once, not after that PONG", async () => {
		const { wait, pongs } = brokerWithClient();
		const [first, second] = [wait(), wait()];
		await new Promise(resolve => setImmediate(resolve));
		expect(pongs).toHaveLength(1);
		const third = wait();
		await new Promise(resolve => setImmediate(resolve));
		// The first PING does not answer for the third wait: a second one is under way before the first PONG.
		expect(pongs).toHaveLength(2);
		pongs[0]();
		expect(await settled(first)).toBe(true);
		expect(await settled(second)).toBe(true);
		expect(await settled(third)).toBe(false);
		pongs[1]();
		expect(await settled(third)).toBe(true);
		expect(pongs).toHaveLength(2);
	});

	test("gives up after 250 ms when the bus does not answer (down, or the node stalled)", async () => {
		const { wait } = brokerWithClient();
		const started = Date.now();
		await wait();
		expect(Date.now() - started).toBeGreaterThanOrEqual(240);
	});
});
