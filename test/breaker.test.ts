import { Errors, ServiceBroker } from "moleculer";
import { defaultConfig } from "../shared/config";
import { brokerOptions } from "../shared/broker-options";

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
						if ((ctx.params as { fail?: boolean }).fail) throw new Errors.MoleculerError("The node is in trouble", 500, "TROUBLE");
						return "served";
					},
				},
			},
		});
		await broker.start();
	});
	afterAll(() => broker.stop());

	test("after 50 failures in a row the next call is served", async () => {
		for (let i = 0; i < 50; i++) await expect(broker.call("flaky.answer", { fail: true })).rejects.toMatchObject({ type: "TROUBLE" });
		await expect(broker.call("flaky.answer", {})).resolves.toBe("served");
	});
});
