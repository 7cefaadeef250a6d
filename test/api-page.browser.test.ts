import { Browser, Page } from "playwright-core";
import { catalogue } from "../shared/catalogue";
import { launchChromium } from "./support/chromium";
import { describeNeeding, hasChromium } from "./support/machine-tools";
import { startPlaza, TestPlaza, WireRecord } from "./support/plaza";

/** What these tests read of a page element (the DOM types are not in this project's lib). */
type Shown = { textContent: string | null; getAttribute(name: string): string | null };

describeNeeding("Chromium", hasChromium)("the API page (Swagger UI) in headless Chromium", () => {
	let plaza: TestPlaza;
	let browser: Browser;
	let page: Page;
	const problems: string[] = [];

	beforeAll(async () => {
		plaza = await startPlaza();
		browser = await launchChromium();
		page = await browser.newPage();
		page.on("pageerror", err => problems.push(`page error: ${err.message}`));
		page.on("console", message => {
			if (message.type() === "error") problems.push(`console: ${message.text()}`);
		});
		await page.goto(`${plaza.url}/swagger-ui/`);
		await page.waitForSelector(".opblock", { timeout: 20_000 });
	}, 60_000);
	afterAll(async () => {
		await browser?.close();
		await plaza?.stop();
	});

	test("shows every operation of the catalogue, under a policy that lets the page run and nothing else", async () => {
		const shown = new Set(
			await page.$$eval(".opblock .opblock-summary-operation-id", (nodes: Shown[]) =>
				nodes.map(n => (n.textContent ?? "").trim()),
			),
		);
		expect(catalogue.filter(op => !shown.has(op.name)).map(op => op.name)).toEqual([]);
		expect(await page.title()).toBe("Plaza API");
		expect(problems).toEqual([]);

		const html = await plaza.http("GET", "/swagger-ui/");
		expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
		expect(html.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'self'; /);
		expect(html.headers.get("content-security-policy")).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
		expect((await plaza.http("GET", "/swagger-ui/../package.json")).status).toBe(404);
		expect((await plaza.http("GET", "/swagger-ui/constructor")).status).toBe(404);
	});

	test("tries an operation from the page: Registration, with its body edited in the page", async () => {
		const userName = `page${Date.now()}`;
		const block = page.locator(".opblock", {
			has: page.locator(".opblock-summary-operation-id", { hasText: /^Registration$/ }),
		});
		await block.locator(".opblock-summary").first().click();
		await block.locator("button.try-out__btn").click();
		await block
			.locator("textarea.body-param__text")
			.fill(
				JSON.stringify({ UserName: userName, Password: "correct horse battery", FirstName: "Page", LastName: "Tried" }),
			);
		await block.locator("button.execute").click();
		const status = block.locator(".live-responses-table .response .response-col_status").first();
		await status.waitFor({ timeout: 15_000 });
		expect((await status.textContent())?.trim()).toMatch(/^200/);
		expect(await block.locator(".live-responses-table").textContent()).toContain(`"UserName": "${userName}"`);
		if (process.env.PLAZA_SCREENSHOT) await page.screenshot({ path: process.env.PLAZA_SCREENSHOT, fullPage: false });

		const users = await plaza.admin<WireRecord[]>("GET", "/Users?Limit=1000");
		expect(users.body).toContainEqual(expect.objectContaining({ FirstName: "Page", LastName: "Tried" }));
		expect(problems).toEqual([]);
	});

	/** A fresh tab that records page errors and console errors (a refused stylesheet or script is one). */
	async function watchedPage(): Promise<{ tab: Page; seen: string[] }> {
		const tab = await browser.newPage();
		const seen: string[] = [];
		tab.on("pageerror", err => seen.push(`page error: ${err.message}`));
		tab.on("console", message => {
			if (message.type() === "error" || message.type() === "warning") seen.push(`console: ${message.text()}`);
		});
		return { tab, seen };
	}

	test("GET / in the browser lands on the API page", async () => {
		const { tab, seen } = await watchedPage();
		try {
			await tab.goto(`${plaza.url}/`);
			expect(tab.url()).toBe(`${plaza.url}/swagger-ui/`);
			expect(await tab.title()).toBe("Plaza API");
			await tab.waitForSelector(".opblock", { timeout: 20_000 });
			expect(seen).toEqual([]);
		} finally {
			await tab.close();
		}
	});

	test("the metadata pages: every operation listed, its links lead to its pages in each format, styled with no policy violation", async () => {
		const { tab, seen } = await watchedPage();
		try {
			await tab.goto(`${plaza.url}/metadata`);
			expect(await tab.title()).toBe("Plaza metadata");
			const listed = await tab.$$eval("tbody tr td:first-child a", (links: Shown[]) =>
				links.map(a => (a.textContent ?? "").trim()),
			);
			expect(listed).toEqual(catalogue.map(op => op.name));
			// The page's own stylesheet applied: its hash is in the policy.
			const inPage = (th: unknown) =>
				(globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(
					th,
				).backgroundColor;
			expect(await tab.$eval("th", inPage)).toBe("rgb(245, 245, 245)");

			// Every link on the index leads somewhere that answers.
			const hrefs = [
				...new Set(await tab.$$eval("a", (links: Shown[]) => links.map(a => a.getAttribute("href") ?? ""))),
			].map(href => new URL(href, plaza.url).href);
			expect(hrefs.length).toBeGreaterThan(catalogue.length * 3);
			const broken: string[] = [];
			for (const href of hrefs) {
				const reply = await tab.request.get(href);
				if (reply.status() !== 200) broken.push(`${href} ${reply.status()}`);
			}
			expect(broken).toEqual([]);

			await tab.locator("tbody tr td:first-child a", { hasText: /^CreatePost$/ }).click();
			await tab.waitForURL(`${plaza.url}/json/metadata?op=CreatePost`);
			expect(await tab.locator("h1").textContent()).toBe("CreatePost");
			expect(await tab.locator("pre").first().textContent()).toContain('"IsPrivate": false');
			expect(
				await tab
					.locator("tr", { has: tab.locator("code", { hasText: /^IsPrivate$/ }) })
					.first()
					.locator("td")
					.allTextContents(),
			).toEqual(["IsPrivate", "bool", "no", "Default false"]);

			await tab.locator("a", { hasText: /^XML$/ }).click();
			await tab.waitForURL(`${plaza.url}/xml/metadata?op=CreatePost`);
			expect(await tab.locator("pre").first().textContent()).toContain("<IsPrivate>false</IsPrivate>");
			await tab.locator("a", { hasText: /^SOAP 1\.1$/ }).click();
			await tab.waitForURL(`${plaza.url}/soap11/metadata?op=CreatePost`);
			expect(await tab.locator("pre").first().textContent()).toContain(
				"SOAPAction: http://schemas.servicestack.net/types/CreatePost",
			);
			await tab.locator("a", { hasText: /^All operations$/ }).click();
			await tab.waitForURL(`${plaza.url}/metadata`);
			expect(seen).toEqual([]);

			// An unknown operation's page is a 404 (which the console reports), styled like the others.
			const missing = await tab.goto(`${plaza.url}/json/metadata?op=Nothing`);
			expect(missing?.status()).toBe(404);
			expect(await tab.locator("h1").textContent()).toBe("No such operation");
			expect(
				await tab.$eval(
					"h1",
					(h1: unknown) =>
						(globalThis as unknown as { getComputedStyle(element: unknown): { fontSize: string } }).getComputedStyle(h1)
							.fontSize,
				),
			).toBe("24px");
			expect(seen).toEqual(["console: Failed to load resource: the server responded with a status of 404 (Not Found)"]);
		} finally {
			await tab.close();
		}
	}, 60_000);
});
