import { randomBytes } from "node:crypto";
import { Errors, ServiceBroker } from "moleculer";
import { defaultConfig } from "../shared/config";
import { brokerOptions } from "../shared/broker-options";
import { natsServerBinary, TestNats } from "./support/nats";

/**
 * Issue 15: in one process every action has one endpoint, the local one. A circuit breaker there has
 * nowhere to send calls, so after a run of failures (a burst of timeouts under overload) it would
 * take the action out for everyone until its half-open time. It must not.
 */
describe("one process: failures never take an action out", () => {
	let broker: ServiceBroker;

	beforeAll(async () => {
		broker = new ServiceBroker({ ...brokerOptions(defaultConfig({ logLevel: "error" }), []), logger: false });
		broker.createService({
			name: "flaky",
			actions: {
				answer: {
					visibility: "published",
					handler: ctx => {
						if ((ctx.params as { fail?: boolean }).fail)
							throw new Errors.MoleculerError("The node is in trouble", 500, "TROUBLE");
						return "served";
					},
				},
			},
		});
		await broker.start();
	});
	afterAll(() => broker.stop());

	test("after 50 failures in a row the next call is served", async () => {
		for (let i = 0; i < 50; i++)
			await expect(broker.call("flaky.answer", { fail: true })).rejects.toMatchObject({ type: "TROUBLE" });
		await expect(broker.call("flaky.answer", {})).resolves.toBe("served");
	});
});

const describeWithNats = natsServerBinary ? describe : describe.skip;

/** Issue 35: over NATS each caller picks the node, and its breaker leaves out one that is alive but failing. */
describeWithNats("over NATS: a node alive but failing stops getting its share of calls", () => {
	const secret = randomBytes(32).toString("hex");
	let nats: TestNats;
	const brokers: ServiceBroker[] = [];

	/** A broker of the deployment's configuration; `answer` serves flaky.answer, or fails it. */
	const startNode = async (nodeId: string, answer?: () => string) => {
		const config = defaultConfig({
			logLevel: "error",
			transporter: nats.url,
			cluster: { ...defaultConfig().cluster, secret, nodeId },
		});
		const broker = new ServiceBroker({ ...brokerOptions(config, []), logger: false });
		if (answer)
			broker.createService({ name: "flaky", actions: { answer: { visibility: "published", handler: answer } } });
		brokers.push(broker);
		await broker.start();
		return broker;
	};

	beforeAll(async () => {
		nats = await TestNats.start();
	}, 30_000);
	afterAll(async () => {
		await Promise.all(brokers.map(b => b.stop()));
		await nats?.stop();
	});

	test("after its first failures, every call goes to the node that answers", async () => {
		await startNode(`steady-${process.pid}`, () => "served");
		await startNode(`failing-${process.pid}`, () => {
			throw new Errors.MoleculerError("The node is in trouble", 500, "TROUBLE");
		});
		const caller = await startNode(`caller-${process.pid}`);
		await caller.waitForServices("flaky", 10_000);
		while ((caller.registry.getActionEndpoints("flaky.answer")?.count() ?? 0) < 2)
			await new Promise(resolve => setTimeout(resolve, 50));
		const answers: string[] = [];
		for (let i = 0; i < 60; i++) answers.push(await caller.call<string>("flaky.answer").catch(() => "failed"));
		expect(answers.filter(a => a === "failed").length).toBeLessThanOrEqual(12);
		expect(answers.slice(-30)).toEqual(Array(30).fill("served"));
	}, 30_000);
});
