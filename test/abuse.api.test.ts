import net from "node:net";
import { startPlaza, Session, TestPlaza } from "./support/plaza";

/**
 * Issue 17, item 4: abusive clients cost the others nothing. Slow clients holding connections open,
 * floods of reads and writes, floods of failed sign-ins, floods of refused requests to many
 * operations at once: while and after they come, everyone else is answered, quickly, and never with
 * a 5xx. (One operation's refused calls are in bulkhead.api.test.ts; budgets in limits.api.test.ts.)
 */
describe("abusive clients cost the others nothing", () => {
	let plaza: TestPlaza;
	let owner: Session;
	let other: Session;
	let postId: string;
	// Behind one trusted proxy: the attacker and the owner are different addresses, as they would be.
	const attacker = { "X-Forwarded-For": "203.0.113.66" };
	const fromOwner = { "X-Forwarded-For": "198.51.100.7" };
	beforeAll(async () => {
		plaza = await startPlaza({ trustProxy: 1 });
		[owner, other] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		postId = (await owner.http("POST", "/Posts", { AuthorId: owner.userId, Content: "before the abuse" })).body.Id;
	});
	afterAll(() => plaza.stop());

	/** The status and time of one request; 0 when it got no answer within `timeoutMs`. */
	const timed = async (
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
		timeoutMs = 10_000,
	) => {
		const started = Date.now();
		const status = await fetch(plaza.url + path, {
			method,
			headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		}).then(
			async res => (await res.arrayBuffer(), res.status),
			() => 0,
		);
		return { status, ms: Date.now() - started };
	};
	/** What a well-behaved user does: read a post, write one, read their feed; each must answer 200 within `withinMs`. */
	const wellBehaved = async (withinMs: number) => {
		const asOwner = { "X-ss-id": owner.token, ...fromOwner };
		const replies = [
			await timed("GET", `/Posts/${postId}`, undefined, asOwner),
			await timed("POST", "/Posts", { AuthorId: owner.userId, Content: "still here" }, asOwner),
			await timed("GET", `/Users/${owner.userId}/Feed`, undefined, asOwner),
		];
		expect(replies.map(r => r.status)).toEqual([200, 200, 200]);
		expect(Math.max(...replies.map(r => r.ms))).toBeLessThan(withinMs);
	};
	const statusSet = (replies: Array<{ status: number }>) => [...new Set(replies.map(r => r.status))].sort();

	test("200 slow clients (headers or body a byte at a time) hold connections; others are answered within 2 s", async () => {
		const sockets: net.Socket[] = [];
		const open = (first: string) =>
			new Promise<net.Socket>((resolve, reject) => {
				const socket = net.connect(Number(new URL(plaza.url).port), "127.0.0.1", () => resolve(socket));
				socket.on("error", reject);
				socket.write(first);
				sockets.push(socket);
			});
		await Promise.all(Array.from({ length: 100 }, () => open("GET /health HTTP/1.1\r\nHost: plaza\r\n")));
		await Promise.all(
			Array.from({ length: 100 }, () =>
				open(
					`POST /Posts HTTP/1.1\r\nHost: plaza\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nX-ss-id: ${other.token}\r\n\r\n{`,
				),
			),
		);
		const drip = setInterval(
			() => sockets.forEach((s, i) => s.writable && s.write(i < 100 ? "X-Slow: a\r\n" : " ")),
			200,
		);
		try {
			await new Promise(resolve => setTimeout(resolve, 1000));
			await wellBehaved(2000);
			expect(sockets.filter(s => !s.destroyed)).toHaveLength(200);
		} finally {
			clearInterval(drip);
			sockets.forEach(s => s.destroy());
		}
		// None of the half-sent posts was made.
		expect((await other.http<unknown[]>("GET", `/Users/${other.userId}/Feed`)).body).toEqual([]);
	}, 30_000);

	test("a flood of 600 reads and writes from 60 connections at once: every one answered 200, every write kept", async () => {
		const asOther = { "X-ss-id": other.token, ...attacker };
		const replies: Array<{ status: number; ms: number }> = [];
		await Promise.all(
			Array.from({ length: 60 }, async (_, c) => {
				for (let i = 0; i < 10; i++)
					replies.push(
						i % 2
							? await timed("GET", `/Posts/${postId}`, undefined, asOther)
							: await timed("POST", "/Posts", { AuthorId: other.userId, Content: `flood ${c}-${i}` }, asOther),
					);
			}),
		);
		expect(statusSet(replies)).toEqual([200]);
		const kept = (
			await other.http<Array<{ Content: string }>>("GET", `/Users/${other.userId}/Feed?Limit=1000`)
		).body.filter(p => p.Content.startsWith("flood "));
		expect(kept).toHaveLength(300);
		await wellBehaved(2000);
	}, 60_000);

	test("300 wrong-password sign-ins at once: 401 or 429, never a 5xx; the owner signs in from elsewhere, and others are served", async () => {
		const guesses = await Promise.all(
			Array.from({ length: 300 }, (_, i) =>
				timed(
					"POST",
					"/auth/credentials",
					{ UserName: i % 2 ? owner.userName : other.userName, Password: `guess ${i}` },
					attacker,
					20_000,
				),
			),
		);
		expect(statusSet(guesses)).toEqual([401, 429]);
		expect(
			(await timed("POST", "/auth/credentials", { UserName: owner.userName, Password: owner.password }, fromOwner))
				.status,
		).toBe(200);
		await wellBehaved(2000);
	}, 60_000);

	test("150 refused calls to each of five operations at once (401, 400, 403, 404, 409); then each of them, and others, serve", async () => {
		const asOther = { "X-ss-id": other.token, ...attacker };
		const unknownPost = "0f8fad5bd9cb469fa16570867728950e";
		const floods = await Promise.all([
			...Array.from({ length: 150 }, () =>
				timed("POST", "/Posts", { AuthorId: other.userId, Content: "anonymous" }, attacker),
			),
			...Array.from({ length: 150 }, () => timed("POST", "/Connections", { OwnerId: other.userId }, asOther)),
			...Array.from({ length: 150 }, () =>
				timed("PUT", `/Users/${owner.userId}`, { FirstName: "Not", LastName: "Yours" }, asOther),
			),
			...Array.from({ length: 150 }, () => timed("GET", `/Posts/${unknownPost}`, undefined, asOther)),
			...Array.from({ length: 150 }, () =>
				timed("POST", "/register", { UserName: owner.userName, Password: "a long passphrase" }, attacker, 20_000),
			),
		]);
		const per = (k: number) => statusSet(floods.slice(k * 150, (k + 1) * 150));
		expect([per(0), per(1), per(2), per(3), per(4)]).toEqual([[401], [400], [403], [404], [409]]);

		const asOwner = { "X-ss-id": owner.token, ...fromOwner };
		const served = [
			await timed("POST", "/Posts", { AuthorId: owner.userId, Content: "after the refusals" }, asOwner, 2000),
			await timed("POST", "/Connections", { OwnerId: owner.userId, ConnectToId: other.userId }, asOwner, 2000),
			await timed("PUT", `/Users/${owner.userId}`, { FirstName: "Still", LastName: "Mine" }, asOwner, 2000),
			await timed("GET", `/Posts/${postId}`, undefined, asOwner, 2000),
			await timed(
				"POST",
				"/register",
				{ UserName: `after.refusals.${Date.now()}`, Password: "a long passphrase" },
				fromOwner,
				5000,
			),
		];
		expect(served.map(r => r.status)).toEqual([200, 200, 200, 200, 200]);
		expect((await owner.http("GET", `/Users/${owner.userId}`)).body).toMatchObject({
			FirstName: "Still",
			LastName: "Mine",
		});
		await wellBehaved(2000);
	}, 90_000);
});
