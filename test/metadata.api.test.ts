import { catalogue } from "../shared/catalogue";
import { plazaForSuite } from "./support/plaza";

/** The text of an HTML fragment: tags dropped, the five references the pages write decoded. */
function textOf(html: string): string {
	return html
		.replace(/<[^>]+>/g, "")
		.replace(/&lt;/g, "<")
		.replace(/&gt;/g, ">")
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, "&");
}

/**
 * The rows of the first table after a heading whose text starts with `heading` (the page's first table for ""), as cell
 * texts.
 */
function tableAfter(html: string, heading: string): string[][] {
	const at = heading ? html.indexOf(`<h2>${heading}`) : 0;
	if (at < 0) throw new Error(`No heading ${heading}`);
	const table = /<table>([\s\S]*?)<\/table>/.exec(html.slice(at))?.[1] ?? "";
	return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(row =>
		[...row[1].matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map(cell => textOf(cell[1])),
	);
}

/** The content of the `<pre>` after a heading. */
function exampleAfter(html: string, heading: string): string {
	const at = html.indexOf(`<h2>${heading}`);
	if (at < 0) throw new Error(`No heading ${heading}`);
	return textOf(/<pre>([\s\S]*?)<\/pre>/.exec(html.slice(at))?.[1] ?? "");
}

describe("the metadata pages (/metadata and a page per operation and format), and GET /", () => {
	const { plaza } = plazaForSuite({ services: ["users"] });

	test("GET /metadata lists every operation with its routes and a link per format, as HTML under a no-script policy", async () => {
		const reply = await plaza.http("GET", "/metadata");
		expect(reply.status).toBe(200);
		expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
		const policy = reply.headers.get("content-security-policy") ?? "";
		expect(policy).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; /);
		expect(policy).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
		expect(reply.headers.get("x-frame-options")).toBe("DENY");

		const rows = new Map(
			tableAfter(reply.text, "")
				.slice(1)
				.map(cells => [cells[0], cells]),
		);
		expect(catalogue.filter(op => !rows.has(op.name)).map(op => op.name)).toEqual([]);
		for (const op of catalogue) {
			for (const format of ["json", "xml", "soap11"])
				expect(reply.text).toContain(`href="/${format}/metadata?op=${op.name}"`);
		}
		expect(rows.get("FindUser")).toEqual([
			"FindUser",
			"Retrieve one user",
			"GET /Users/{Id}",
			"JSON",
			"XML",
			"SOAP 1.1",
		]);
		expect(rows.get("CreatePost")?.[2]).toBe("POST /Posts");
		expect(reply.text).toContain('<a href="/openapi.json">');
	});

	test("/json/metadata?op=CreatePost: routes, access, request and response fields, and an example request in JSON", async () => {
		const reply = await plaza.http("GET", "/json/metadata?op=CreatePost");
		expect(reply.status).toBe(200);
		expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
		const html = reply.text;
		expect(html).toContain("<h1>CreatePost</h1>");
		expect(textOf(html)).toContain(
			"Signed-in callers only. AuthorId must be the caller's own id unless the caller is an administrator.",
		);

		expect(tableAfter(html, "Routes")).toEqual([
			["Verb", "Path"],
			["POST", "/Posts"],
			["POST", "/json/reply/CreatePost"],
		]);
		const request = new Map(
			tableAfter(html, "Request")
				.slice(1)
				.map(([name, type, required, description]) => [name, { type, required, description }]),
		);
		expect(request.get("AuthorId")).toEqual({
			type: "Guid",
			required: "yes",
			description: expect.stringContaining("GUID"),
		});
		expect(request.get("IsPrivate")).toEqual({ type: "bool", required: "no", description: "Default false" });
		expect(request.get("MessageType")).toMatchObject({
			type: "int",
			required: "no",
			description: expect.stringContaining("≤ 1000"),
		});
		expect(request.get("RecipientIds")).toMatchObject({ type: "List<Guid>", required: "no" });
		expect(request.get("ExpirationDate")).toMatchObject({ type: "DateTime" });
		expect(html).toContain("<h2>Response: Post</h2>");
		expect(tableAfter(html, "Response").map(row => row[0])).toEqual(
			expect.arrayContaining(["Id", "Content", "IsPrivate", "CreatedTime"]),
		);

		const example = exampleAfter(html, "Example request");
		const [head, body] = example.split("\n\n");
		expect(head.split("\n")).toEqual([
			"POST /json/reply/CreatePost HTTP/1.1",
			`Host: ${new URL(plaza.url).host}`,
			"Accept: application/json",
			"Content-Type: application/json",
			"Content-Length: length",
		]);
		const sent = JSON.parse(body) as Record<string, unknown>;
		expect(Object.keys(sent).sort()).toEqual([...request.keys()].sort());
		expect(sent).toMatchObject({
			IsPrivate: false,
			MessageType: 0,
			RecipientIds: [expect.stringMatching(/^[0-9a-f]{32}$/)],
		});
		expect(body).toContain('"ExpirationDate": "\\/Date(');
		expect(exampleAfter(html, "Example response")).toMatch(
			/^HTTP\/1\.1 200 OK\nContent-Type: application\/json; charset=utf-8\n/,
		);
	});

	test("the XML and SOAP 1.1 pages show the request as ServiceStack's XML and in a SOAP envelope", async () => {
		const xml = await plaza.http("GET", "/xml/metadata?op=CreatePost");
		expect(xml.status).toBe(200);
		const xmlExample = exampleAfter(xml.text, "Example request");
		expect(xmlExample).toMatch(/^POST \/xml\/reply\/CreatePost HTTP\/1\.1\n/);
		expect(xmlExample).toContain("Content-Type: application/xml\n");
		expect(xmlExample).toContain(
			'<CreatePost xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.servicestack.net/types"',
		);
		expect(xmlExample).toContain("\n  <IsPrivate>false</IsPrivate>\n");
		expect(xmlExample).toContain("\n  <ExpirationDate>2024-11-22T10:00:00.000Z</ExpirationDate>\n");
		expect(xmlExample).toMatch(
			/<RecipientIds>\n {4}<arr:guid>0f8fad5b-d9cb-469f-a165-70867728950e<\/arr:guid>\n {2}<\/RecipientIds>/,
		);

		const soap = await plaza.http("GET", "/soap11/metadata?op=CreatePost");
		expect(soap.status).toBe(200);
		const soapExample = exampleAfter(soap.text, "Example request");
		expect(soapExample).toMatch(/^POST \/soap11 HTTP\/1\.1\n/);
		expect(soapExample).toContain("SOAPAction: http://schemas.servicestack.net/types/CreatePost");
		expect(soapExample).toContain('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"');
		expect(soapExample).toContain("<CreatePost ");
		expect(exampleAfter(soap.text, "Example response")).toContain("<CreatePostResponse ");
		for (const page of [xml.text, soap.text])
			expect(tableAfter(page, "Request").map(row => row[0])).toContain("IsPrivate");
	});

	test("an operation is found by any case and by its alias; a page with no op leads to /metadata", async () => {
		for (const name of ["finduser", "FINDUSER"]) {
			const reply = await plaza.http("GET", `/json/metadata?op=${name}`);
			expect(reply.status).toBe(200);
			expect(reply.text).toContain("<h1>FindUser</h1>");
		}
		const alias = catalogue.find(op => op.aliases?.length);
		if (alias)
			expect((await plaza.http("GET", `/json/metadata?op=${alias.aliases?.[0]}`)).text).toContain(
				`<h1>${alias.name}</h1>`,
			);
		const bare = await fetch(`${plaza.url}/json/metadata`, { redirect: "manual" });
		expect(bare.status).toBe(302);
		expect(bare.headers.get("location")).toBe("/metadata");
	});

	test("an unknown operation is a 404 page, and what the caller wrote is shown escaped", async () => {
		const hostile = `<script>alert("x")</script>`;
		const reply = await plaza.http("GET", `/json/metadata?op=${encodeURIComponent(hostile)}`);
		expect(reply.status).toBe(404);
		expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
		expect(reply.text).not.toContain("<script");
		expect(reply.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
		expect(reply.headers.get("content-security-policy")).not.toMatch(/script-src/);
		expect((await plaza.http("GET", "/xml/metadata?op=NoSuchThing")).status).toBe(404);
		// Repeated, the parameter is no operation name either.
		expect((await plaza.http("GET", "/json/metadata?op=FindUser&op=AllUsers")).status).toBe(404);
	});

	test("GET / sends a browser to the API page", async () => {
		const root = await fetch(`${plaza.url}/`, { redirect: "manual", headers: { Accept: "text/html" } });
		expect(root.status).toBe(302);
		expect(root.headers.get("location")).toBe("/swagger-ui/");
		const followed = await fetch(`${plaza.url}/`, { headers: { Accept: "text/html" } });
		expect(followed.status).toBe(200);
		expect(followed.url).toBe(`${plaza.url}/swagger-ui/`);
		expect(await followed.text()).toContain("<title>Plaza API</title>");
	});
});
