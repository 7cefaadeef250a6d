import { ErrorBody, Session, startPlaza, TestPlaza } from "./support/plaza";
import { RawStream, TestEvents } from "./support/server-events";
import { defaultConfig } from "../shared/config";
import { describeCluster, GatewayClient, TestCluster } from "./support/cluster";

/**
 * Issue 18: ServiceStack Server Events, through the real gateway, with the unmodified
 * ServerEventsClient of @servicestack/client: the life-cycle messages, what reaches a user's stream,
 * privacy checked at delivery, and what a reconnecting stream missed.
 */
describe("Server Events in one process", () => {
	let plaza: TestPlaza;
	const open: Array<TestEvents | RawStream> = [];
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterEach(async () => {
		await Promise.all(open.splice(0).map(events => (events instanceof RawStream ? events.close() : events.stop())));
	});
	afterAll(() => plaza.stop());

	const streamOf = (who: Session | undefined, channels = ["home"]) => {
		const events = new TestEvents(plaza.url, channels, who ? { "X-ss-id": who.token } : {});
		open.push(events);
		return events.start();
	};
	const post = async (who: Session, fields: Record<string, unknown> = {}) => {
		const reply = await who.http("POST", "/Posts", { AuthorId: who.userId, Content: "a post", ...fields });
		expect(reply.status).toBe(200);
		return reply.body;
	};
	const follow = async (who: Session, whom: Session) =>
		expect(
			(await who.http("POST", "/Subscriptions", { SubscriberId: who.userId, SubscribedToId: whom.userId })).status,
		).toBe(200);

	test("connects: cmd.onConnect says who the stream is for and where its heartbeat and unregister are; its join is announced", async () => {
		const user = await plaza.signUp({ FirstName: "Stream", LastName: "Reader" });
		const events = await streamOf(user, ["home", "news"]);
		const info = events.client.getConnectionInfo();
		expect(info).toMatchObject({
			userId: user.userId,
			isAuthenticated: "true",
			channels: "home,news",
			heartbeatIntervalMs: 10_000,
			idleTimeoutMs: 30_000,
		});
		expect(info.heartbeatUrl).toBe(`${plaza.url}/event-heartbeat?id=${info.id}`);
		expect(info.unRegisterUrl).toBe(`${plaza.url}/event-unregister?id=${info.id}`);
		expect(info.updateSubscriberUrl).toBe(`${plaza.url}/event-subscribers/${info.id}`);
		const join = await events.next(m => m.selector === "home@cmd.onJoin");
		expect(join.body).toMatchObject({ userId: user.userId, channels: "home,news" });
		await events.next(m => m.selector === "news@cmd.onJoin");

		// A heartbeat with another caller's credentials is refused (403); without any (as ServerEventsClient sends it
		// outside a browser) or with its own, it keeps the stream (and answers onHeartbeat).
		const stranger = await plaza.signUp();
		const beat = (headers: Record<string, string>) => fetch(info.heartbeatUrl, { method: "POST", headers });
		const another = await beat({ "X-ss-id": stranger.token });
		expect([another.status, ((await another.json()) as ErrorBody).ResponseStatus.ErrorCode]).toEqual([
			403,
			"Forbidden",
		]);
		expect(events.bodies("cmd.onHeartbeat")).toEqual([]);
		expect((await beat({})).status).toBe(200);
		expect((await beat({ "X-ss-id": user.token })).status).toBe(200);
		await events.next(m => m.selector === "cmd.onHeartbeat");
		// The subscribers list shows it to its user, not to a stranger.
		expect((await user.http<Array<Record<string, string>>>("GET", "/event-subscribers?channels=home")).body).toEqual([
			expect.objectContaining({ userId: user.userId }),
		]);
		expect((await stranger.http<unknown[]>("GET", "/event-subscribers?channels=home")).body).toEqual([]);
		expect((await fetch(`${plaza.url}/event-heartbeat?id=nope`, { method: "POST" })).status).toBe(404);
	});

	test("a followed author's post reaches the follower's stream as cmd.Post, the record the API returns; the author's own stream too", async () => {
		const [reader, author] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		await follow(reader, author);
		const [readerEvents, authorEvents] = await Promise.all([streamOf(reader), streamOf(author)]);
		const created = await post(author, { Content: "hello, streams", Tags: ["live"] });
		const message = await readerEvents.next(m => m.selector === "cmd.Post");
		expect(message.body).toEqual(created);
		expect(message.eventId).toBeGreaterThan(0);
		expect((await authorEvents.next(m => m.selector === "cmd.Post")).body).toMatchObject({ Id: created.Id });

		// A comment on the author's post reaches the author.
		const commenter = await plaza.signUp();
		const comment = await commenter.http("POST", `/Posts/${created.Id}/Comments`, {
			PostId: created.Id,
			AuthorId: commenter.userId,
			Content: "nice",
		});
		expect((await authorEvents.next(m => m.selector === "cmd.Comment")).body).toEqual(comment.body);
		expect(readerEvents.bodies("cmd.Comment")).toEqual([]);
	});

	test("a private post reaches its recipient's stream and never a stranger's or an anonymous one, even one following its author", async () => {
		const [author, recipient, stranger] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		await follow(stranger, author);
		const [recipientEvents, strangerEvents, anonymousEvents] = await Promise.all([
			streamOf(recipient),
			streamOf(stranger),
			streamOf(undefined),
		]);
		const secret = await post(author, { Content: "secret", IsPrivate: true, RecipientIds: [recipient.userId] });
		const open = await post(author, { Content: "for everyone" });
		expect((await recipientEvents.next(m => m.selector === "cmd.Post")).body).toMatchObject({ Id: secret.Id });
		// The public post after it reached the stranger: the private one, written before it, would have too.
		await strangerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === open.Id);
		expect(strangerEvents.bodies("cmd.Post").map(p => p.Id)).toEqual([open.Id]);
		expect(anonymousEvents.bodies("cmd.Post")).toEqual([]);
	});

	test("a private post reaches a recipient added later, at once, and still no one else", async () => {
		const [author, added, stranger] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		await follow(stranger, author);
		const [addedEvents, strangerEvents] = await Promise.all([streamOf(added), streamOf(stranger)]);
		const secret = await post(author, { Content: "secret", IsPrivate: true });
		expect((await author.http("POST", `/Posts/${secret.Id}/Recipients`, { RecipientId: added.userId })).status).toBe(
			200,
		);
		expect((await addedEvents.next(m => m.selector === "cmd.Post")).body).toMatchObject({
			Id: secret.Id,
			Content: "secret",
		});
		const open = await post(author, { Content: "for everyone" });
		await strangerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === open.Id);
		expect(strangerEvents.bodies("cmd.Post").map(p => p.Id)).toEqual([open.Id]);
	});

	test("an edit reaches a follower's stream as cmd.Post, a deletion as cmd.PostDeleted; a stranger hears neither of a private post", async () => {
		const [author, follower, stranger] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		await Promise.all([follow(follower, author), follow(stranger, author)]);
		const [followerEvents, strangerEvents] = await Promise.all([streamOf(follower), streamOf(stranger)]);
		const secret = await post(author, { Content: "for one", IsPrivate: true, RecipientIds: [follower.userId] });
		await followerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === secret.Id);
		expect((await author.http("PUT", `/Posts/${String(secret.Id)}`, { Content: "for one, edited" })).status).toBe(200);
		await followerEvents.next(m => m.selector === "cmd.Post" && m.body.Content === "for one, edited");
		expect((await author.http("DELETE", `/Posts/${String(secret.Id)}`)).status).toBe(200);
		const gone = await followerEvents.next(m => m.selector === "cmd.PostDeleted");
		expect(gone.body).toEqual({ Id: secret.Id });
		// After the follower heard both, the stranger has had every chance to hear them too.
		const after = await post(author, { Content: "public, after" });
		await strangerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === after.Id);
		expect(strangerEvents.received.filter(m => JSON.stringify(m.body).includes(String(secret.Id)))).toEqual([]);
	});

	test("a block hides at once on open streams, both ways, through a shared network; a mute keeps the muted user's posts off the muter's stream", async () => {
		const [blocker, blocked, muter, bystander] = await Promise.all([
			plaza.signUp(),
			plaza.signUp(),
			plaza.signUp(),
			plaza.signUp(),
		]);
		const club = await blocker.http("POST", "/Networks", { OwnerId: blocker.userId, Name: "Club", IsOpen: true });
		for (const who of [blocked, muter, bystander])
			expect((await who.http("POST", `/Networks/${club.body.Id}/Members`, { UserId: who.userId })).status).toBe(200);
		const [blockerEvents, blockedEvents, muterEvents, bystanderEvents] = await Promise.all(
			[blocker, blocked, muter, bystander].map(who => streamOf(who)),
		);
		const before = await post(blocked, { Content: "before the block", ContextId: club.body.Id });
		await blockerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === before.Id);

		expect((await blocker.http("POST", "/Blocks", { OwnerId: blocker.userId, BlockedId: blocked.userId })).status).toBe(
			200,
		);
		expect((await muter.http("POST", "/Mutes", { OwnerId: muter.userId, MutedId: blocked.userId })).status).toBe(200);
		// Posted right after the answers, into the network all four are in: the block and the mute apply already.
		const byBlocked = await post(blocked, { Content: "after the block", ContextId: club.body.Id });
		const byBlocker = await post(blocker, { Content: "the blocker's", ContextId: club.body.Id });
		for (const events of [bystanderEvents, muterEvents])
			await events.next(m => m.selector === "cmd.Post" && m.body.Id === byBlocker.Id);
		await bystanderEvents.next(m => m.selector === "cmd.Post" && m.body.Id === byBlocked.Id);
		await blockedEvents.next(m => m.selector === "cmd.Post" && m.body.Id === byBlocked.Id);
		const last = await post(bystander, { Content: "last", ContextId: club.body.Id });
		for (const events of [blockerEvents, blockedEvents, muterEvents])
			await events.next(m => m.selector === "cmd.Post" && m.body.Id === last.Id);

		const postIds = (events: TestEvents) => events.bodies("cmd.Post").map(p => p.Id);
		expect(postIds(blockerEvents)).toEqual([before.Id, byBlocker.Id, last.Id]);
		expect(postIds(blockedEvents)).toEqual([before.Id, byBlocked.Id, last.Id]);
		expect(postIds(muterEvents)).toEqual([before.Id, byBlocker.Id, last.Id]);
		expect(postIds(bystanderEvents)).toEqual([before.Id, byBlocked.Id, byBlocker.Id, last.Id]);
	});

	test("signing out ends the session's streams: a post after it never reaches them", async () => {
		const [leaver, stayer, author] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		await Promise.all([follow(leaver, author), follow(stayer, author)]);
		const [leaverEvents, stayerEvents] = await Promise.all([streamOf(leaver), streamOf(stayer)]);
		expect((await leaver.http("GET", "/auth/logout")).status).toBe(200);
		const after = await post(author, { Content: "after the sign-out" });
		await stayerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === after.Id);
		expect(leaverEvents.bodies("cmd.Post")).toEqual([]);
	});

	test("a stream opened with a password ends when the password changes, and when the account is taken back", async () => {
		const [user, author] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const basic = (password: string) => ({
			Authorization: `Basic ${Buffer.from(`${user.userName}:${password}`).toString("base64")}`,
		});
		const stream = await RawStream.open(plaza.url, basic(user.password));
		open.push(stream);
		const secret = await post(author, { Content: "for the user", IsPrivate: true, RecipientIds: [user.userId] });
		await stream.until(() => stream.text.includes(String(secret.Id)));
		const changed = await user.http("PUT", `/Users/${user.userId}`, {
			FirstName: "New",
			LastName: "Password",
			Password: "a brand new password",
			CurrentPassword: user.password,
		});
		expect(changed.status).toBe(200);
		await stream.until(() => stream.ended);
		expect((await fetch(`${plaza.url}/event-stream`, { headers: basic(user.password) })).status).toBe(401);

		const again = await RawStream.open(plaza.url, basic("a brand new password"));
		open.push(again);
		await plaza.broker.call("users.removeAccount", { id: user.userId }, { caller: "reservations" });
		await again.until(() => again.ended);
	});

	test("a stream opened with an API key ends when the key is revoked; one opened with a bearer token at sign-out", async () => {
		const user = await plaza.signUp();
		const key = String((await user.http("POST", "/apikeys", {})).body.Result);
		const byKey = await RawStream.open(plaza.url, { Authorization: `Bearer ${key}` });
		open.push(byKey);
		const [listed] = (await user.http("GET", "/apikeys")).body.Results as Array<{ Id: number }>;
		expect((await user.http("PUT", `/apikeys/${listed.Id}`, { CancelledDate: Date.now() })).status).toBe(200);
		await byKey.until(() => byKey.ended);

		const signIn = { UserName: user.userName, Password: user.password };
		const { BearerToken } = (await plaza.http("POST", "/auth/credentials", signIn)).body;
		const byToken = await RawStream.open(plaza.url, { Authorization: `Bearer ${String(BearerToken)}` });
		open.push(byToken);
		const out = await plaza.http("POST", "/auth/logout", {}, { Authorization: `Bearer ${String(BearerToken)}` });
		expect(out.status).toBe(200);
		await byToken.until(() => byToken.ended);
	});

	test("a stream opened with a session ends when the expiry purge removes its session", async () => {
		const expiring = await startPlaza({ auth: { ...defaultConfig().auth, sessionTtlSeconds: 1 } });
		try {
			const user = await expiring.signUp();
			const stream = await RawStream.open(expiring.url, { "X-ss-id": user.token });
			await new Promise(resolve => setTimeout(resolve, 1_500));
			// What the purge's timer (every 10 minutes) runs.
			await (
				expiring.broker.getLocalService("sessions") as unknown as { purgeExpired(): Promise<void> }
			).purgeExpired();
			await stream.until(() => stream.ended);
			expect(
				(
					await fetch(`${expiring.url}/event-heartbeat?id=${stream.id}`, {
						method: "POST",
						headers: { "X-ss-id": user.token },
					})
				).status,
			).toBe(404);
		} finally {
			await expiring.stop();
		}
	});

	test("a caller holds at most 10 streams on a gateway (EVENT_STREAMS_PER_CALLER): the next is 429; others are not counted; closing one makes room", async () => {
		const [user, other] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const streams = await Promise.all(
			Array.from({ length: 10 }, () => RawStream.open(plaza.url, { "X-ss-id": user.token })),
		);
		open.push(...streams);
		const refused = await fetch(`${plaza.url}/event-stream?channels=home`, { headers: { "X-ss-id": user.token } });
		expect(refused.status).toBe(429);
		expect(refused.headers.get("retry-after")).toBe("30");
		expect(((await refused.json()) as ErrorBody).ResponseStatus).toMatchObject({
			ErrorCode: "TooManyRequests",
			Message: expect.stringContaining("At most 10 event streams"),
		});
		open.push(await RawStream.open(plaza.url, { "X-ss-id": other.token }));
		await streams[0].close();
		open.push(await RawStream.open(plaza.url, { "X-ss-id": user.token }));

		// Anonymous callers are counted by their address.
		const anonymous = await Promise.all(Array.from({ length: 10 }, () => RawStream.open(plaza.url)));
		open.push(...anonymous);
		expect((await fetch(`${plaza.url}/event-stream?channels=home`)).status).toBe(429);
	});

	test("a new follow takes effect on an open stream; new connections reach both users", async () => {
		const [reader, author] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const events = await streamOf(reader);
		await follow(reader, author);
		const created = await post(author);
		expect((await events.next(m => m.selector === "cmd.Post")).body).toMatchObject({ Id: created.Id });
		const authorEvents = await streamOf(author);
		expect(
			(await author.http("POST", "/Connections", { OwnerId: author.userId, ConnectToId: reader.userId })).status,
		).toBe(200);
		expect((await events.next(m => m.selector === "cmd.Connection")).body).toMatchObject({
			OwnerId: reader.userId,
			UserId: author.userId,
		});
		expect((await authorEvents.next(m => m.selector === "cmd.Connection")).body).toMatchObject({
			OwnerId: author.userId,
			UserId: reader.userId,
		});
	});

	test("a stream dropped by the server reconnects with Last-Event-ID and gets what it missed (not what it may not see); an id older than the window asks for a reload", async () => {
		const [reader, author, other] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
		await follow(reader, author);
		const events = await streamOf(reader);
		const first = await post(author, { Content: "before" });
		await events.next(m => m.selector === "cmd.Post" && m.body.Id === first.Id);
		const connectId = events.client.getConnectionInfo().id;
		// The gateway ends the stream; while the client waits to reconnect (3 s), two posts are written.
		expect((await fetch(events.client.getConnectionInfo().unRegisterUrl, { method: "POST" })).status).toBe(200);
		const missed = await post(author, { Content: "while away" });
		await post(author, { Content: "not for the reader", IsPrivate: true, RecipientIds: [other.userId] });
		const replayed = await events.next(m => m.selector === "cmd.Post" && m.body.Id === missed.Id, 10_000);
		expect(events.client.getConnectionInfo().id).not.toBe(connectId);
		expect(replayed.body).toMatchObject({ Content: "while away" });
		expect(events.bodies("cmd.Post").map(p => p.Content)).toEqual(["before", "while away"]);

		const stale = new TestEvents(plaza.url, ["home"], { "X-ss-id": reader.token, "Last-Event-ID": "1" });
		open.push(stale);
		await stale.start();
		expect((await stale.next(m => m.selector === "cmd.onReload")).body).toEqual({ windowStart: expect.any(Number) });
		expect(stale.bodies("cmd.Post")).toEqual([]);
	});

	test("a stream signed in only by its cookie is refused from another site", async () => {
		const user = await plaza.signUp();
		const reply = await fetch(`${plaza.url}/event-stream?channels=home`, {
			headers: { Cookie: `ss-id=${user.token}`, Origin: "https://evil.example" },
		});
		expect(reply.status).toBe(403);
		const own = new AbortController();
		const allowed = await fetch(`${plaza.url}/event-stream?channels=home`, {
			headers: { Cookie: `ss-id=${user.token}` },
			signal: own.signal,
		});
		expect(allowed.status).toBe(200);
		expect(allowed.headers.get("content-type")).toMatch(/^text\/event-stream/);
		own.abort();
	});
});

describeCluster("Server Events across gateways over NATS", () => {
	let cluster: TestCluster;
	let a: GatewayClient;
	let b: GatewayClient;
	const open: TestEvents[] = [];
	const as = (who: { token: string }) => ({ "X-ss-id": who.token });

	beforeAll(async () => {
		cluster = await TestCluster.start();
		[a, b] = await cluster.startTwoGateways();
	}, 90_000);
	afterAll(async () => {
		await Promise.all(open.splice(0).map(events => events.stop()));
		await cluster?.stop();
	}, 60_000);

	/** An author signed up at gateway A, followed by a reader and a stranger whose streams are open on gateway B. */
	const followersOnB = async () => {
		const [author, reader, stranger] = await Promise.all([
			a.signUp("author"),
			b.signUp("reader"),
			b.signUp("stranger"),
		]);
		for (const who of [reader, stranger])
			expect(
				(await a.call("POST", "/Subscriptions", { SubscriberId: who.userId, SubscribedToId: author.userId }, as(who)))
					.status,
			).toBe(200);
		const [readerEvents, strangerEvents] = [reader, stranger].map(who => new TestEvents(b.url, ["home"], as(who)));
		open.push(readerEvents, strangerEvents);
		await Promise.all([readerEvents.start(), strangerEvents.start()]);
		return { author, reader, readerEvents, strangerEvents };
	};

	test("a post written through gateway A reaches a follower's stream on gateway B; a private one never reaches a stranger's stream there", async () => {
		const { author, reader, readerEvents, strangerEvents } = await followersOnB();
		const secret = (
			await a.call(
				"POST",
				"/Posts",
				{ AuthorId: author.userId, Content: "secret", IsPrivate: true, RecipientIds: [reader.userId] },
				as(author),
			)
		).body;
		const shared = (await a.call("POST", "/Posts", { AuthorId: author.userId, Content: "for all" }, as(author))).body;
		expect((await readerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === shared.Id)).body).toMatchObject({
			Content: "for all",
			AuthorId: author.userId,
		});
		expect(readerEvents.bodies("cmd.Post").map(p => p.Id)).toEqual([secret.Id, shared.Id]);
		await strangerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === shared.Id);
		expect(strangerEvents.bodies("cmd.Post").map(p => p.Id)).toEqual([shared.Id]);
	});

	test("posts written at once (their events leave the posts node together) each reach gateway B's streams once, a private one only its recipient's", async () => {
		const { author, reader, readerEvents, strangerEvents } = await followersOnB();
		const replies = await Promise.all(
			Array.from({ length: 12 }, (_, i) =>
				a.call(
					"POST",
					"/Posts",
					{
						AuthorId: author.userId,
						Content: `post ${i}`,
						...(i % 3 === 0 ? { IsPrivate: true, RecipientIds: [reader.userId] } : {}),
					},
					as(author),
				),
			),
		);
		expect(replies.map(r => r.status)).toEqual(Array(12).fill(200));
		const ids = replies.map(r => r.body.Id);
		const publicIds = ids.filter((_, i) => i % 3 !== 0);
		for (const id of ids) await readerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === id);
		for (const id of publicIds) await strangerEvents.next(m => m.selector === "cmd.Post" && m.body.Id === id);
		const postIds = (events: TestEvents) => new Set(events.bodies("cmd.Post").map(p => p.Id));
		// Each once: as many events as posts, and the same ids.
		expect([readerEvents.bodies("cmd.Post").length, postIds(readerEvents)]).toEqual([ids.length, new Set(ids)]);
		expect([strangerEvents.bodies("cmd.Post").length, postIds(strangerEvents)]).toEqual([
			publicIds.length,
			new Set(publicIds),
		]);
	});
});
