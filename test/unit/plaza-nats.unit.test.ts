import { PlazaNats } from "../../shared/bus/plaza-nats";

/** The transporter's batching of packets, on a stand-in for the NATS client (what it publishes, and when). */
function transporterWithClient() {
	const published: string[] = [];
	const transporter = new PlazaNats("nats://127.0.0.1:4222");
	const client = {
		publish: (topic: string) => published.push(topic),
		flush: () => Promise.resolve(),
		close: () => Promise.resolve(),
	};
	Object.assign(transporter, { client });
	return { transporter, published };
}

const nextTurn = () => new Promise(resolve => setImmediate(resolve));

describe("packets put on the bus", () => {
	test("are published together on the next turn of the event loop, in the order they were sent", async () => {
		const { transporter, published } = transporterWithClient();
		await Promise.all(["a", "b", "c"].map(topic => transporter.send(topic, Buffer.from(topic))));
		expect(published).toEqual([]);
		await nextTurn();
		expect(published).toEqual(["a", "b", "c"]);
		await transporter.send("d", Buffer.from("d"));
		await nextTurn();
		expect(published).toEqual(["a", "b", "c", "d"]);
	});

	test("still waiting when the node disconnects are published before the connection closes", async () => {
		const { transporter, published } = transporterWithClient();
		await transporter.send("last words", Buffer.from("x"));
		await transporter.disconnect();
		expect(published).toEqual(["last words"]);
	});

	test("sent after the connection closed are dropped, not thrown on a later turn", async () => {
		const { transporter } = transporterWithClient();
		Object.assign(transporter, {
			client: {
				publish: () => {
					throw new Error("CONNECTION_CLOSED");
				},
			},
		});
		await transporter.send("late", Buffer.from("x"));
		await expect(nextTurn()).resolves.toBeUndefined();
	});
});
