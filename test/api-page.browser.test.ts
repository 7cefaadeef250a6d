import { Browser, chromium, Page } from "playwright-core";
import { catalogue } from "../shared/catalogue";
import { startPlaza, TestPlaza, WireRecord } from "./support/plaza";

/** Debian's Chromium (.ci/run installs it); these flags keep it off the closed network. Playwright gives it a fresh profile. */
const executablePath = process.env.PLAZA_CHROMIUM ?? "/usr/bin/chromium";
const args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

describe("the API page (Swagger UI) in headless Chromium", () => {
	let plaza: TestPlaza;
	let browser: Browser;
	let page: Page;
	const problems: string[] = [];

	beforeAll(async () => {
		plaza = await startPlaza();
		browser = await chromium.launch({ executablePath, args, headless: true });
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
		const shown = new Set(await page.$$eval(".opblock .opblock-summary-operation-id", nodes => nodes.map(n => (n.textContent ?? "").trim())));
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
		const block = page.locator(".opblock", { has: page.locator(".opblock-summary-operation-id", { hasText: /^Registration$/ }) });
		await block.locator(".opblock-summary").first().click();
		await block.locator("button.try-out__btn").click();
		await block.locator("textarea.body-param__text").fill(JSON.stringify({ UserName: userName, Password: "correct horse battery", FirstName: "Page", LastName: "Tried" }));
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
});
