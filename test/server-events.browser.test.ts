import fs from "node:fs";
import path from "node:path";
import { Browser, Page } from "playwright-core";
import { launchChromium } from "./support/chromium";
import { describeNeeding, hasChromium } from "./support/machine-tools";
import { startPlaza, Session, TestPlaza } from "./support/plaza";

/** @servicestack/client as browsers load it (its ES module), unmodified. */
const clientModule = fs.readFileSync(
	path.join(path.dirname(require.resolve("@servicestack/client")), "servicestack-client.mjs"),
);

/**
 * A page of the site that calls Plaza (served on Plaza's own origin by the browser's request
 * interception: Plaza has no such page): it signs in with /auth/credentials, as a ServiceStack web
 * app does, so that its stream is authenticated by the session cookie alone, and runs
 * ServerEventsClient over the browser's own EventSource. What it receives is kept in `received`.
 */
const page$ = `<!doctype html><meta charset="utf-8"><title>events</title>
<script type="module">
import { ServerEventsClient } from "/browser-test/servicestack-client.mjs";
window.received = [];
window.connectAs = async (UserName, Password) => {
	const res = await fetch("/auth/credentials", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ UserName, Password }) });
	if (!res.ok) throw new Error("sign-in: " + res.status);
	const record = m => window.received.push({ selector: m.selector, body: m.body, eventId: m.eventId });
	window.client = new ServerEventsClient(location.origin, ["home"], { handlers: { onConnect: (_info, m) => record(m), onMessage: record } });
	window.client.start();
};
window.ready = true;
</script>`;

/** What the page keeps of a message (the DOM's types are not in this project's lib). */
interface Received {
	selector: string;
	body: { Id?: string; Content?: string; id?: string; unRegisterUrl?: string };
	eventId: number;
}
type EventsWindow = {
	ready?: boolean;
	received: Received[];
	connectAs(userName: string, password: string): Promise<void>;
};

describeNeeding("Chromium", hasChromium)(
	"ServerEventsClient in headless Chromium, signed in by its session cookie",
	() => {
		let plaza: TestPlaza;
		let browser: Browser;
		const problems: string[] = [];

		beforeAll(async () => {
			plaza = await startPlaza();
			browser = await launchChromium();
		}, 60_000);
		afterAll(async () => {
			await browser?.close();
			await plaza?.stop();
		});

		/** A fresh tab (its own cookies) on the test page, signed in as `who`, its stream connected. */
		async function streamIn(who: Session): Promise<Page> {
			const context = await browser.newContext();
			const page = await context.newPage();
			page.on("pageerror", err => problems.push(`page error: ${err.message}`));
			await page.route(`${plaza.url}/browser-test/**`, route =>
				route.request().url().endsWith(".mjs")
					? route.fulfill({ contentType: "text/javascript", body: clientModule })
					: route.fulfill({ contentType: "text/html", body: page$ }),
			);
			await page.goto(`${plaza.url}/browser-test/events.html`);
			await page.waitForFunction(() => (globalThis as unknown as EventsWindow).ready === true);
			await page.evaluate(
				([userName, password]) => (globalThis as unknown as EventsWindow).connectAs(userName, password),
				[who.userName, who.password],
			);
			await until(page, "cmd.onConnect");
			return page;
		}
		const receivedIn = (page: Page) => page.evaluate(() => (globalThis as unknown as EventsWindow).received);
		/** Waits for a message of `selector` (and, if given, about the record `id`). */
		const until = (page: Page, selector: string, id?: string) =>
			page.waitForFunction(
				([s, i]) =>
					(globalThis as unknown as EventsWindow).received.some(
						m => m.selector === s && (i === undefined || m.body.Id === i),
					),
				[selector, id] as const,
				{ timeout: 15_000 },
			);
		const post = async (who: Session, fields: Record<string, unknown> = {}) => {
			const reply = await who.http<{ Id: string }>("POST", "/Posts", {
				AuthorId: who.userId,
				Content: "a post",
				...fields,
			});
			expect(reply.status).toBe(200);
			return reply.body;
		};
		const follow = async (who: Session, whom: Session) =>
			expect(
				(await who.http("POST", "/Subscriptions", { SubscriberId: who.userId, SubscribedToId: whom.userId })).status,
			).toBe(200);

		test("connects, receives a followed author's post as cmd.Post, and never a private post meant for someone else", async () => {
			const [reader, author, other] = await Promise.all([plaza.signUp(), plaza.signUp(), plaza.signUp()]);
			await follow(reader, author);
			const page = await streamIn(reader);
			const connect = (await receivedIn(page)).find(m => m.selector === "cmd.onConnect")!;
			expect(connect.body).toMatchObject({ userId: reader.userId, isAuthenticated: "true" });

			const secret = await post(author, {
				Content: "not for the reader",
				IsPrivate: true,
				RecipientIds: [other.userId],
			});
			const open = await post(author, { Content: "for everyone" });
			await until(page, "cmd.Post", open.Id);
			const posts = (await receivedIn(page)).filter(m => m.selector === "cmd.Post");
			expect(posts.map(m => m.body.Id)).toEqual([open.Id]);
			expect(posts.map(m => m.body.Id)).not.toContain(secret.Id);
			expect(problems).toEqual([]);
		}, 60_000);

		test("reconnects by itself after the server ends the stream, with Last-Event-ID, and gets what it missed", async () => {
			const [reader, author] = await Promise.all([plaza.signUp(), plaza.signUp()]);
			await follow(reader, author);
			const page = await streamIn(reader);
			const first = await post(author, { Content: "before" });
			await until(page, "cmd.Post", first.Id);
			const connect = (await receivedIn(page)).find(m => m.selector === "cmd.onConnect")!;
			// The gateway ends the stream; while the browser waits to reconnect, a post is written.
			expect((await fetch(connect.body.unRegisterUrl!, { method: "POST" })).status).toBe(200);
			const missed = await post(author, { Content: "while away" });
			await until(page, "cmd.Post", missed.Id);
			const received = await receivedIn(page);
			expect(received.filter(m => m.selector === "cmd.onConnect").map(m => m.body.id)).toHaveLength(2);
			expect(received.filter(m => m.selector === "cmd.Post").map(m => m.body.Content)).toEqual([
				"before",
				"while away",
			]);
			expect(problems).toEqual([]);
		}, 60_000);
	},
);
