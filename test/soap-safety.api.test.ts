import { startPlaza, TestPlaza } from "./support/plaza";
import { asAdmin, envelope, postSoap, TYPES } from "./support/soap";

const createUser = (firstName: string) =>
	`<CreateUser xmlns="${TYPES}"><FirstName>${firstName}</FirstName><LastName>Hostile</LastName></CreateUser>`;

describe("SOAP 1.1: hostile and broken envelopes are refused, change nothing, and leave the server answering", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"] });
	});
	afterAll(() => plaza.stop());

	/** Sends a refused envelope: a Fault with the status, no user written, no internals shown. */
	async function refused(body: string | Uint8Array, status: number, fault: RegExp): Promise<void> {
		const before = await plaza.count("users", "users");
		const reply = await fetch(`${plaza.url}/soap11`, {
			method: "POST",
			body,
			headers: { "Content-Type": "text/xml; charset=utf-8", ...asAdmin },
		});
		const text = await reply.text();
		expect(reply.status).toBe(status);
		expect(reply.headers.get("x-status")).toBe(String(status));
		expect(text).toMatch(/<soap:Fault><faultcode>soap:\w+<\/faultcode><faultstring>/);
		expect(text).toMatch(fault);
		expect(text).not.toMatch(/root:|\/etc\/|node_modules|at \w+ \(|saxes/);
		expect(await plaza.count("users", "users")).toBe(before);
	}

	afterEach(async () => {
		expect((await plaza.http("GET", "/health")).status).toBe(200);
		const still = await postSoap(plaza, envelope(`<AllUsers xmlns="${TYPES}"><Limit>1</Limit></AllUsers>`), asAdmin);
		expect(still.status).toBe(200);
		expect(still.text).toContain("<AllUsersResponse");
	});

	test("XXE: an external entity is never resolved; the DTD is refused", async () => {
		const xxe = `<?xml version="1.0"?><!DOCTYPE soap:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${envelope(createUser("&xxe;"))}`;
		await refused(xxe, 400, /document type declaration \(DTD\) is not allowed/);
		const parameterEntity = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY % remote SYSTEM "http://127.0.0.1:1/evil.dtd"> %remote;]>${envelope(createUser("x"))}`;
		await refused(parameterEntity, 400, /DTD/);
	});

	test("billion laughs: no entity is expanded, and the answer is immediate", async () => {
		const lols = [
			'<!ENTITY lol0 "lol">',
			...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`),
		].join("");
		const started = Date.now();
		await refused(`<?xml version="1.0"?><!DOCTYPE lolz [${lols}]>${envelope(createUser("&lol9;"))}`, 400, /DTD/);
		expect(Date.now() - started).toBeLessThan(2000);
		// An entity never declared is not expanded either.
		await refused(envelope(createUser("&lol9;")), 400, /not well-formed/);
	});

	test("a 50 MB envelope is refused with 413, by its Content-Length or while it streams in", async () => {
		const huge = envelope(createUser("A".repeat(50 * 1024 * 1024)));
		await refused(huge, 413, /PayloadTooLarge/);
		const chunks = new ReadableStream<Uint8Array>({
			start(controller) {
				const piece = new TextEncoder().encode("A".repeat(1024 * 1024));
				controller.enqueue(new TextEncoder().encode(envelope(createUser("")).slice(0, 200)));
				for (let i = 0; i < 50; i++) controller.enqueue(piece);
				controller.close();
			},
		});
		const reply = await fetch(`${plaza.url}/soap11`, {
			method: "POST",
			body: chunks,
			headers: { "Content-Type": "text/xml", ...asAdmin },
			duplex: "half",
		});
		expect(reply.status).toBe(413);
		expect(await reply.text()).toContain("<faultcode>soap:Client</faultcode>");
	});

	test("malformed envelopes are Faults: not XML, not closed, not SOAP 1.1, not UTF-8, no request, too deep", async () => {
		await refused("this is not xml", 400, /not well-formed/);
		await refused(envelope(createUser("Ada")).slice(0, -20), 400, /not well-formed/);
		await refused("", 400, /not well-formed|no root/);
		await refused(
			`<Envelope xmlns="urn:not-soap"><Body>${createUser("Ada")}</Body></Envelope>`,
			400,
			/SOAP 1\.1 Envelope/,
		);
		await refused(
			`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body>${createUser("Ada")}</e:Body></e:Envelope>`,
			400,
			/soap:VersionMismatch/,
		);
		await refused(
			envelope(createUser("Ada"), `<Trace xmlns="urn:x" soap:mustUnderstand="1">on</Trace>`),
			400,
			/soap:MustUnderstand/,
		);
		await refused(envelope(`<x:AllUsers xmlns:y="${TYPES}"/>`), 400, /not well-formed/);
		await refused(envelope(""), 400, /exactly one request/);
		await refused(envelope(createUser("Ada") + createUser("Bob")), 400, /exactly one request/);
		await refused(Buffer.from(envelope(createUser("caf\u00e9")), "latin1"), 400, /not UTF-8/);
		await refused(
			`<?xml version="1.0" encoding="ISO-8859-1"?>${envelope(createUser("Ada"))}`,
			400,
			/ISO-8859-1 is not supported/,
		);
		await refused(
			envelope(`<CreateUser xmlns="${TYPES}">${"<a>".repeat(5000)}${"</a>".repeat(5000)}</CreateUser>`),
			400,
			/nested deeper than/,
		);
		await refused(
			envelope(`<CreateUser xmlns="${TYPES}">${"<a/>".repeat(20000)}</CreateUser>`),
			400,
			/more than 10000 elements/,
		);
	});
});
