import { SaxesParser } from "saxes";
import { ErrorBody, Reply, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { comparable, TYPES } from "./support/soap";

const XSI = "http://www.w3.org/2001/XMLSchema-instance";

/**
 * An element of an answer, read with saxes (not the gateway's own reader): namespace, name, attributes by `{uri}local`,
 * children, text.
 */
interface Element {
	uri: string;
	local: string;
	attributes: Record<string, string>;
	children: Element[];
	text: string;
}

function parse(xml: string): Element {
	const parser = new SaxesParser({ xmlns: true });
	const stack: Element[] = [];
	let root: Element | undefined;
	parser.on("opentag", tag => {
		const element: Element = { uri: tag.uri, local: tag.local, attributes: {}, children: [], text: "" };
		for (const a of Object.values(tag.attributes)) element.attributes[`{${a.uri}}${a.local}`] = a.value;
		if (stack.length) stack[stack.length - 1].children.push(element);
		else root = element;
		stack.push(element);
	});
	parser.on("text", text => {
		if (stack.length) stack[stack.length - 1].text += text;
	});
	parser.on("closetag", () => stack.pop());
	parser.write(xml).close();
	if (!root) throw new Error(`No root element in ${xml}`);
	return root;
}

/**
 * An element read as the JSON value it should match: items for an array, members by element name for
 * an object, scalars as the JSON's type. Guided by the JSON only for types; every element becomes
 * a member, so an element JSON lacks (or a member the XML lacks) shows as a difference.
 */
function asJson(element: Element, like: unknown): unknown {
	if (Array.isArray(like)) return element.children.map((child, i) => asJson(child, like[i]));
	if (element.children.length || (like !== null && typeof like === "object")) {
		return Object.fromEntries(
			element.children.map(child => [
				child.local,
				asJson(child, (like as Record<string, unknown> | undefined)?.[child.local]),
			]),
		);
	}
	if (typeof like === "number") return Number(element.text);
	if (typeof like === "boolean") return element.text === "true";
	return element.text;
}

/** Checks an XML answer's envelope-free shape and returns its root. */
function xmlAnswer(reply: Reply<unknown>, status: number, rootName: string): Element {
	expect({ status: reply.status, type: reply.headers.get("content-type") }).toEqual({
		status,
		type: "application/xml; charset=utf-8",
	});
	expect(reply.text.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
	const root = parse(reply.text);
	expect({ uri: root.uri, local: root.local }).toEqual({ uri: TYPES, local: rootName });
	return root;
}

/** The ResponseStatus of an XML failure: `<ErrorResponse><ResponseStatus>…`. */
function xmlFailure(
	reply: Reply<unknown>,
	status: number,
): { ErrorCode: string; Message: string; Errors: Array<Record<string, string>> } {
	const root = xmlAnswer(reply, status, "ErrorResponse");
	expect(root.children.map(c => c.local)).toEqual(["ResponseStatus"]);
	const member = (name: string) => root.children[0].children.find(c => c.local === name);
	const errors = member("Errors")?.children ?? [];
	expect(errors.every(e => e.local === "ResponseError")).toBe(true);
	return {
		ErrorCode: member("ErrorCode")?.text ?? "",
		Message: member("Message")?.text ?? "",
		Errors: errors.map(e => Object.fromEntries(e.children.map(c => [c.local, c.text]))),
	};
}

describe("XML as ServiceStack writes it: the four ways of asking, XML bodies, lists, failures", () => {
	let plaza: TestPlaza;
	let ann: Session;

	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		ann = await plaza.signUp({ FirstName: "Ann", LastName: "Xml" });
	});
	afterAll(() => plaza.stop());

	test("a post created with an XML body reads back the same in XML, asked for in each of the four ways, as in JSON", async () => {
		const body = `<?xml version="1.0" encoding="utf-8"?>
<CreatePost xmlns:i="${XSI}" xmlns="${TYPES}" xmlns:arr="http://schemas.microsoft.com/2003/10/Serialization/Arrays">
	<AuthorId>${ann.userId}</AuthorId>
	<Content>Tea &amp; &lt;biscuits&gt; at four ☕</Content>
	<ContextId i:nil="true" />
	<IsPrivate>false</IsPrivate>
	<MessageType>3</MessageType>
	<Tags><arr:string>xml</arr:string><arr:string>tea</arr:string></Tags>
</CreatePost>`;
		// A caller who accepts anything is answered in the XML they sent, as ServiceStack answers.
		const created = await ann.http<unknown>("POST", "/Posts", body, {
			"Content-Type": "application/xml",
			Accept: "*/*",
		});
		const createdXml = xmlAnswer(created, 200, "Post");
		const id = createdXml.children.find(c => c.local === "Id")?.text.replace(/-/g, "") ?? "";

		const json = await ann.http("GET", `/Posts/${id}`);
		expect(json.status).toBe(200);
		expect(json.body).toMatchObject({
			AuthorId: ann.userId,
			Content: "Tea & <biscuits> at four ☕",
			MessageType: 3,
			IsPrivate: false,
		});
		expect((json.body.Tags as Array<{ Name?: string; Value?: string }>).length).toBe(2);
		expect(comparable(asJson(createdXml, json.body))).toEqual(comparable(json.body));

		const ways: Array<[string, Record<string, string>]> = [
			[`/Posts/${id}`, { Accept: "application/xml" }],
			[`/Posts/${id}.xml`, {}],
			[`/Posts/${id}?format=xml`, {}],
			[`/xml/reply/FindPost?Id=${id}`, {}],
		];
		for (const [path, headers] of ways) {
			const reply = await ann.http<unknown>("GET", path, undefined, headers);
			const root = xmlAnswer(reply, 200, "Post");
			expect(root.attributes).toEqual({
				"{http://www.w3.org/2000/xmlns/}i": XSI,
				"{http://www.w3.org/2000/xmlns/}xmlns": TYPES,
			});
			// Members in the WSDL's (DataContract's alphabetical) order.
			const names = root.children.map(c => c.local);
			expect(names).toEqual([...names].sort());
			expect([path, comparable(asJson(root, json.body))]).toEqual([path, comparable(json.body)]);
		}

		// JSON stays the default, and the JSON routes and suffix stay JSON whatever Accept says.
		for (const [path, headers] of [
			[`/Posts/${id}`, {}],
			[`/json/reply/FindPost?Id=${id}`, { Accept: "application/xml" }],
			[`/Posts/${id}.json`, { Accept: "application/xml" }],
		] as const) {
			const reply = await ann.http("GET", path, undefined, headers);
			expect([path, reply.headers.get("content-type"), reply.body]).toEqual([
				path,
				"application/json; charset=utf-8",
				json.body,
			]);
		}
	});

	test("a list is an ArrayOf its records, and XML is never answered from, nor kept as, the JSON kept answers", async () => {
		const first = await ann.http<WireRecord[]>("GET", "/Users?Limit=1000");
		expect(first.status).toBe(200);
		const xml = xmlAnswer(
			await ann.http<unknown>("GET", "/Users?Limit=1000", undefined, { Accept: "application/xml" }),
			200,
			"ArrayOfUser",
		);
		expect(xml.children.length).toBe(first.body.length);
		expect(xml.children.every(c => c.uri === TYPES && c.local === "User")).toBe(true);
		expect(comparable(asJson(xml, first.body))).toEqual(comparable(first.body));
		// The next JSON answer is still JSON (possibly the kept one), and XML asked again is XML.
		const again = await ann.http<WireRecord[]>("GET", "/Users?Limit=1000");
		expect([again.headers.get("content-type"), again.body]).toEqual(["application/json; charset=utf-8", first.body]);
		xmlAnswer(await ann.http<unknown>("GET", "/xml/reply/AllUsers?Limit=1000"), 200, "ArrayOfUser");
	});

	test("failures in XML are ServiceStack's ErrorResponse with its ResponseStatus, field errors included", async () => {
		const missing = xmlFailure(await ann.http<unknown>("GET", "/Posts/0123456789abcdef0123456789abcdef.xml"), 404);
		expect(missing.ErrorCode).toBe("NotFound");

		const invalid = await ann.http<unknown>(
			"POST",
			"/xml/reply/CreatePost",
			`<CreatePost xmlns="${TYPES}"><AuthorId>${ann.userId}</AuthorId></CreatePost>`,
			{ "Content-Type": "text/xml" },
		);
		const status = xmlFailure(invalid, 400);
		expect(status.ErrorCode).not.toBe("");
		expect(status.Errors).toEqual([expect.objectContaining({ FieldName: "Content" })]);

		const unsigned = xmlFailure(await plaza.http<unknown>("GET", "/Users?format=xml"), 401);
		expect(unsigned.ErrorCode).toBe("Unauthorized");
	});

	test("an XML body that is malformed, declares a DTD or holds no request is a 400 InvalidBody, one too large a 413, and nothing is written", async () => {
		const before = (await ann.http<WireRecord[]>("GET", `/Users/${ann.userId}/Feed?Limit=1000`)).text;
		const bodies = [
			`<CreatePost xmlns="${TYPES}"><AuthorId>${ann.userId}</AuthorId><Content>unclosed</CreatePost>`,
			`<?xml version="1.0"?><!DOCTYPE CreatePost [<!ENTITY x "boom">]><CreatePost xmlns="${TYPES}"><AuthorId>${ann.userId}</AuthorId><Content>&x;</Content></CreatePost>`,
			`<Envelope xmlns="${TYPES}"><Content>no such request</Content></Envelope>`,
		];
		for (const body of bodies) {
			const json = await ann.http<ErrorBody>("POST", "/Posts", body, {
				"Content-Type": "application/xml",
				Accept: "application/json",
			});
			expect([body, json.status, json.body?.ResponseStatus.ErrorCode]).toEqual([body, 400, "InvalidBody"]);
			const xml = xmlFailure(
				await ann.http<unknown>("POST", "/Posts", body, { "Content-Type": "text/xml; charset=utf-8" }),
				400,
			);
			expect(xml.ErrorCode).toBe("InvalidBody");
		}
		// Larger than the body limit (MAX_BODY_BYTES, 1 MB by default): refused as a JSON body is.
		const huge = `<CreatePost xmlns="${TYPES}"><AuthorId>${ann.userId}</AuthorId><Content>${"x".repeat(1_100_000)}</Content></CreatePost>`;
		const tooLarge = await ann.http<ErrorBody>("POST", "/Posts", huge, {
			"Content-Type": "application/xml",
			Accept: "application/json",
		});
		expect([tooLarge.status, tooLarge.body?.ResponseStatus.ErrorCode]).toEqual([413, "PayloadTooLarge"]);
		expect((await ann.http<WireRecord[]>("GET", `/Users/${ann.userId}/Feed?Limit=1000`)).text).toBe(before);
	});

	test("any other format asked for explicitly is a 400, as are two formats at once and JSONP of XML", async () => {
		for (const path of [
			`/Users/${ann.userId}?format=csv`,
			`/Users/${ann.userId}.csv`,
			`/csv/reply/FindUser?Id=${ann.userId}`,
			`/Users/${ann.userId}.json?format=xml`,
			`/Users/${ann.userId}.xml?callback=f`,
		]) {
			const reply = await ann.http<ErrorBody>("GET", path);
			expect([path, reply.status, reply.headers.get("content-type"), reply.body?.ResponseStatus.ErrorCode]).toEqual([
				path,
				400,
				"application/json; charset=utf-8",
				"InvalidValue",
			]);
		}
	});
});
