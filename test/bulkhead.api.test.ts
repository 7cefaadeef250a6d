import { startPlaza, TestPlaza } from "./support/plaza";

/**
 * Issue 13: a refused call (401, 400, 403) must give back its bulkhead slot. Refusals used to be
 * thrown inside Moleculer's bulkhead before it could count them done, so 100 of them (the default
 * concurrency) switched an operation off for everyone until a restart.
 */
describe("the bulkhead after many refused calls", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterAll(() => plaza.stop());

	/**
	 * CreatePost's status, or "no answer" when none came within the time (a call stuck in the bulkhead never answers).
	 */
	const post = (body: unknown, headers: Record<string, string>, timeoutMs = 5_000) =>
		fetch(`${plaza.url}/Posts`, {
			method: "POST",
			headers: { "Content-Type": "application/json", ...headers },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		}).then(
			async res => (await res.text(), res.status),
			() => "no answer",
		);
	/** The statuses of `count` calls sent at once. */
	const burst = (count: number, send: () => Promise<number | string>) =>
		Promise.all(Array.from({ length: count }, send));

	test("150 anonymous, 150 invalid and 150 forbidden CreatePost calls; then a valid one answers 200 within 2 s", async () => {
		expect(plaza.broker.options.bulkhead).toMatchObject({ enabled: true, concurrency: 100 });
		const [author, other] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const asAuthor = { "X-ss-id": author.token };

		const anonymous = await burst(150, () => post({ AuthorId: author.userId, Content: "anonymous" }, {}));
		const invalid = await burst(150, () => post({ AuthorId: author.userId }, asAuthor));
		const forbidden = await burst(150, () => post({ AuthorId: other.userId, Content: "as someone else" }, asAuthor));
		expect([new Set(anonymous), new Set(invalid), new Set(forbidden)]).toEqual([
			new Set([401]),
			new Set([400]),
			new Set([403]),
		]);

		const started = Date.now();
		const valid = await post({ AuthorId: author.userId, Content: "still open" }, asAuthor, 2_000);
		expect(valid).toBe(200);
		expect(Date.now() - started).toBeLessThan(2_000);
	}, 60_000);
});
