import {
	hashPassword,
	hashPasswordWithin,
	hashThreads as threads,
	limitHashWait,
	verifyPassword,
} from "../../shared/passwords";
import { PlazaError } from "../../shared/errors";

describe("password hashes under a burst", () => {
	test("a hash that finds a thread free always starts, however slow the pace; one that would queue past the wait is refused with 503", async () => {
		// A wait no queued hash can meet: only those that find a free thread may start (the decoy takes one).
		limitHashWait(1);
		const started = Array.from({ length: threads - 1 }, (_, i) => hashPassword(`password ${i}`));
		const refused = hashPassword("one too many");
		await expect(refused).rejects.toMatchObject({ code: 503, type: "ServiceUnavailable" });
		await expect(refused).rejects.toBeInstanceOf(PlazaError);
		const hashes = await Promise.all(started);
		expect(await verifyPassword("password 0", hashes[0])).toBe(true);
		// The threads free again: the next one starts.
		expect(await hashPassword("after the burst")).toMatch(/^scrypt\$/);
	});

	test("one hash stretched by a stalled event loop does not refuse the next burst (the pace is a median, not a mean)", async () => {
		limitHashWait(300);
		for (let i = 0; i < 15; i++) await hashPassword(`steady ${i}`);
		// The event loop stalls for 1.5 s while a hash is in flight: its completion is seen late.
		const stalled = hashPassword("stalled");
		const until = Date.now() + 1500;
		while (Date.now() < until);
		await stalled;
		// A burst three times the threads: at the steady pace of a few ms it is well within 300 ms.
		const burst = await Promise.all(Array.from({ length: threads * 3 }, (_, i) => hashPassword(`burst ${i}`)));
		expect(burst).toHaveLength(threads * 3);
	});

	test("a hash for a write that would outlive its call is refused with 503 (nothing done, retry in 1 s); with time enough, or no limit, it is made", async () => {
		// Half OWASP's N: a quarter of a second or more here, never done within 20 ms.
		const slow = { N: 1 << 16, r: 8, p: 1 };
		for (const ms of [0, 20]) {
			const late = hashPasswordWithin("too slow", ms, slow);
			await expect(late).rejects.toBeInstanceOf(PlazaError);
			await expect(late).rejects.toMatchObject({
				code: 503,
				type: "ServiceUnavailable",
				message: expect.stringMatching(/nothing was done, retry in 1 s/),
				data: { retryAfter: 1 },
			});
		}
		expect(await verifyPassword("in time", await hashPasswordWithin("in time", 10_000))).toBe(true);
		expect(await verifyPassword("no limit", await hashPasswordWithin("no limit", undefined))).toBe(true);
	});
});
