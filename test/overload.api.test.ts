import { ErrorBody, startPlaza, TestPlaza } from "./support/plaza";
import { defaultConfig } from "../shared/config";

// Real password hashing (OWASP's scrypt cost): the burst is about what it costs.
delete process.env.PASSWORD_HASH_COST;

const burst = 150;

describe(`a burst of ${burst} registrations on one process`, () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterAll(() => plaza.stop());

	it("answers truthfully and soon: every 200 is an account, every refusal a 503 that left none", async () => {
		const stamp = Date.now();
		const names = Array.from({ length: burst }, (_, i) => `burst${i}_${stamp}`);
		const started = Date.now();
		const replies = await Promise.all(
			names.map(UserName =>
				plaza.http<ErrorBody>("POST", "/register", { UserName, Password: "correct horse battery" }),
			),
		);
		const seconds = (Date.now() - started) / 1000;
		const byStatus: Record<number, number> = {};
		for (const reply of replies) byStatus[reply.status] = (byStatus[reply.status] ?? 0) + 1;
		// The figure, for the report: how many were served, how many told to come back, in how long.
		console.log(`burst of ${burst} registrations: ${JSON.stringify(byStatus)} in ${seconds.toFixed(1)} s`);

		expect(Object.keys(byStatus).map(Number).sort()).toEqual(expect.arrayContaining([200]));
		expect(replies.every(r => r.status === 200 || r.status === 503)).toBe(true);
		for (const [i, reply] of replies.entries()) {
			const accounts = await plaza.stored("users").count("users", { user_name: names[i] });
			expect({ name: names[i], status: reply.status, accounts }).toEqual({
				name: names[i],
				status: reply.status,
				accounts: reply.status === 200 ? 1 : 0,
			});
			if (reply.status === 503) {
				expect(reply.body.ResponseStatus.ErrorCode).toBe("ServiceUnavailable");
				expect(reply.body.ResponseStatus.Message).toMatch(/nothing was done/);
				// ServiceStack's clients and proxies read when to come back from the header.
				expect(reply.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
			}
		}
		// Refused at once rather than after the call's timeout (10 s).
		expect(seconds).toBeLessThan(10);
	}, 60_000);

	it("clients that come back when told all get their account, each once", async () => {
		const stamp = Date.now();
		const names = Array.from({ length: 40 }, (_, i) => `patient${i}_${stamp}`);
		const started = Date.now();
		let refusals = 0;
		const register = async (UserName: string): Promise<number> => {
			for (;;) {
				const reply = await plaza.http<ErrorBody>("POST", "/register", { UserName, Password: "correct horse battery" });
				if (reply.status !== 503) return reply.status;
				refusals += 1;
				const wait = Number(reply.headers.get("Retry-After"));
				await new Promise(resolve => setTimeout(resolve, wait * 1000));
			}
		};
		const statuses = await Promise.all(names.map(register));
		console.log(
			`40 registrations retried as told: all done in ${((Date.now() - started) / 1000).toFixed(1)} s after ${refusals} refusals`,
		);
		expect(statuses).toEqual(names.map(() => 200));
		expect(await plaza.stored("users").count("users", { user_name: names })).toBe(40);
	}, 120_000);
});

describe("a registration whose password hash outlasts its call", () => {
	let plaza: TestPlaza;
	// OWASP's hash takes a few hundred ms even on a fast machine: it cannot finish within 150 ms.
	beforeAll(async () => {
		plaza = await startPlaza({ cluster: { ...defaultConfig().cluster, requestTimeoutMs: 200 } });
	});
	afterAll(() => plaza.stop());

	it("is refused with 503 before the call's timeout, and no account is made, not even once the hash is done", async () => {
		const UserName = `late_${Date.now()}`;
		const reply = await plaza.http<ErrorBody>("POST", "/register", { UserName, Password: "correct horse battery" });
		expect(reply.status).toBe(503);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("ServiceUnavailable");
		expect(reply.body.ResponseStatus.Message).toMatch(/nothing was done/);
		expect(reply.headers.get("Retry-After")).toBe("1");
		// The hash goes on on its thread; what it would have written is not.
		await new Promise(resolve => setTimeout(resolve, 2000));
		expect(await plaza.stored("users").count("users", { user_name: UserName })).toBe(0);
	});
});
