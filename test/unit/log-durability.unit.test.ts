import { LogDurability } from "../../shared/persistence/sql/log-durability";

/** The log's fsyncs: one at a time, each covering every commit written before it began. */
describe("LogDurability", () => {
	const flush = () => new Promise(resolve => setImmediate(resolve));

	/** A log whose fsyncs wait to be let go, one by one. */
	function heldLog() {
		const pending: Array<{ release: () => void; fail: (err: Error) => void }> = [];
		const log = new LogDurability(
			() => new Promise<void>((resolve, reject) => pending.push({ release: resolve, fail: reject })),
			err => new Error(`broken: ${(err as Error).message}`),
		);
		return { log, pending };
	}

	test("commits written during an fsync wait for the next one, which starts when it ends", async () => {
		const { log, pending } = heldLog();
		const done: number[] = [];
		const settled = (commit: number) => log.durableAt(commit).then(() => done.push(commit));
		const first = settled(log.committed());
		const rest = [settled(log.committed()), settled(log.committed())];
		expect(pending).toHaveLength(1);
		pending.shift()!.release();
		await first;
		await flush();
		expect(done).toEqual([1]);
		// One fsync for both commits written while the first ran.
		expect(pending).toHaveLength(1);
		pending.shift()!.release();
		await Promise.all(rest);
		expect(done).toEqual([1, 2, 3]);
		expect(pending).toHaveLength(0);
		await expect(log.durableAt()).resolves.toBeUndefined();
	});

	test("a failed fsync refuses every waiter, and every later one, with the same error", async () => {
		const { log, pending } = heldLog();
		const waiting = log.durableAt(log.committed());
		pending.shift()!.fail(new Error("EIO"));
		await expect(waiting).rejects.toThrow("broken: EIO");
		log.committed();
		expect(pending).toHaveLength(0);
		await expect(log.durableAt()).rejects.toThrow("broken: EIO");
	});

	test("without an fsync (memory), a commit is durable when written", async () => {
		const log = new LogDurability(undefined, err => err as Error);
		await expect(log.durableAt(log.committed())).resolves.toBeUndefined();
	});
});
