/**
 * Issues 13 and 17 (item 2): hostile values in any request field of any operation, on every surface
 * (JSON body, query string, form and multipart bodies, XML bodies, SOAP), and in paths, headers and
 * cookies, are refused as 4xx, never a 5xx, and a refused request changes nothing. A NUL or a lone
 * surrogate in any text field is a 400 with a field error naming it. Every field of every operation
 * gets hostile kinds (operator objects, prototype keys, deep and huge values, text no store keeps,
 * malformed escapes: half of them per field in turn, all of them in a long run); then a seeded
 * property (13) tries random ones, by any caller; PLAZA_FUZZ_RUNS=5000 (and PLAZA_FUZZ_SEED) runs
 * both longer on demand. The run prints how many
 * requests each surface got and how many 5xx came back. Runs on the in-memory store and, as project
 * api-on-postgres, on PostgreSQL (which refuses NUL and lone surrogates in text and so answered 500).
 */
import fc from "fast-check";
import { catalogue, Operation } from "../shared/catalogue";
import { ADMIN_KEY, ErrorBody, Reply, Session, startPlaza, TestPlaza } from "./support/plaza";
import { ARRAYS, envelope, TYPES } from "./support/soap";
import { recordsSnapshot } from "./support/access-records";
import { sendOn } from "./support/access-wire";
import { rawRequest } from "./support/access-raw";

const fuzzRuns = Number(process.env.PLAZA_FUZZ_RUNS ?? 120);
const fuzzSeed = Number(process.env.PLAZA_FUZZ_SEED ?? 13);
const engine = process.env.PLAZA_TEST_STORE === "postgres" ? "postgresql" : "embedded";

/** Hostile requests sent, by surface, and the 5xx among them (there must be none): the figures the run prints. */
const tries = new Map<Surface, number>();
let fiveHundreds = 0;
function tallied<A extends { status: number }>(surface: Surface, answer: A): A {
	tries.set(surface, (tries.get(surface) ?? 0) + 1);
	if (answer.status >= 500) fiveHundreds += 1;
	return answer;
}
afterAll(() => {
	const bySurface = [...tries].map(([surface, n]) => `${surface} ${n}`).join(", ");
	const total = [...tries.values()].reduce((a, b) => a + b, 0);
	console.log(`hostile input (${engine}): ${total} requests tried (${bySurface}); 5xx seen: ${fiveHundreds}`);
});

/** The surfaces a request's fields travel on, and the others a hostile value can reach the gateway by. */
type BodySurface = "json" | "query" | "form" | "multipart" | "xml" | "soap";
type Surface = BodySurface | "path" | "header" | "cookie" | "raw bytes";
type CallerKind = "admin" | "user" | "anonymous";
type FieldErrors = ErrorBody["ResponseStatus"]["Errors"];

/** A request field as the catalogue declares it (joi's description). */
interface Field {
	name: string;
	type: string;
	required: boolean;
	itemType?: string;
	rules: Array<{ name: string; args?: Record<string, unknown> }>;
	valids: unknown[];
}

interface Described {
	type: string;
	flags?: { presence?: string; only?: boolean };
	items?: Described[];
	rules?: Array<{ name: string; args?: Record<string, unknown> }>;
	allow?: unknown[];
}

function fieldsOf(op: Operation): Field[] {
	const keys = (op.request.describe().keys ?? {}) as Record<string, Described>;
	return Object.entries(keys).map(([name, d]) => ({
		name,
		type: d.type,
		required: d.flags?.presence === "required",
		itemType: d.items?.[0]?.type,
		rules: d.rules ?? [],
		valids: d.flags?.only ? (d.allow ?? []) : [],
	}));
}

const isList = (f: Field) => f.type === "list" || f.type === "array";
const isText = (f: Field) => f.type === "string" || (isList(f) && f.itemType === "string");
const textFieldsOf = (op: Operation) => fieldsOf(op).filter(isText);

let unique = 0;

/** A valid value for a field, so that a hostile value in another field is what the request is judged on. */
function validValue(field: Field, userId: string): unknown {
	unique += 1;
	const rule = (name: string) => field.rules.find(r => r.name === name);
	switch (field.type) {
		case "guid":
			return userId;
		case "timestamp":
			return Date.now();
		case "number":
			return Number(rule("min")?.args?.limit ?? 1);
		case "boolean":
			return false;
		case "list":
		case "array":
			return [];
		default:
			if (field.valids.length) return field.valids[0];
			if (rule("email")) return `fuzz${unique}@example.com`;
			if (rule("uri")) return "https://example.com/fuzz";
			if (/contenttype/i.test(field.name)) return "image/png";
			return `fuzz${unique}`.padEnd(Number(rule("min")?.args?.limit ?? 0), "x");
	}
}

/**
 * Valid required fields and valid optional texts: a request that gets as far as the store unless its
 * hostile field stops it. An optional password is left out (each one costs a slow hash).
 */
function validBase(op: Operation, userId: string): Record<string, unknown> {
	const wanted = (f: Field) => f.required || (f.type === "string" && !/password/i.test(f.name));
	return Object.fromEntries(
		fieldsOf(op)
			.filter(wanted)
			.map(f => [f.name, validValue(f, userId)]),
	);
}

/** A hostile value: a string with `hostile` in it, or a value of the wrong shape. */
function nested(depth: number): unknown {
	let value: unknown = "deep";
	for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { Value: value };
	return value;
}

/** An object with its own "__proto__" key (as JSON.parse makes one), which a plain literal cannot have. */
function withOwnProto(fields: Record<string, unknown>, proto: unknown): Record<string, unknown> {
	return Object.defineProperty({ ...fields }, "__proto__", {
		value: proto,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}

const short = fc.string({ maxLength: 6 });
const withNul = fc.tuple(short, short).map(([a, b]) => `${a}\0${b}`);
// fc.string() is ASCII, so the surrogate stays unpaired.
const withLoneSurrogate = fc
	.tuple(short, fc.integer({ min: 0xd800, max: 0xdfff }), short)
	.map(([a, s, b]) => a + String.fromCharCode(s) + b);
const malformedEscapes = ["%", "%%", "%zz", "%ff", "%c0%ae", "%ed%a0%80", "%u0000", "%E0%A4%A", "%00"];

const unstorable = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a value holds a NUL or a lone surrogate once sent on a surface (a URL, a form or multipart carries UTF-8: a
 * lone surrogate arrives as U+FFFD; XML carries it as a character reference).
 */
function carriesUnstorable(value: unknown, surface: BodySurface): boolean {
	return (Array.isArray(value) ? value : [value]).some(
		v =>
			typeof v === "string" &&
			(surface === "json" || surface === "xml" || surface === "soap" ? unstorable.test(v) : v.includes("\0")),
	);
}

/**
 * What goes in the request: the hostile value in one field, or around the request as prototype keys,
 * or a malformed %-escape written as is (rawPairs: in the query string, form or multipart part, SOAP element).
 */
type Hostile =
	| { kind: "value"; value: unknown }
	| { kind: "proto"; key: "__proto__" | "constructor"; value: unknown }
	| { kind: "rawEscape"; escape: string };

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 3, arbitrary: withNul },
	{ weight: 3, arbitrary: withLoneSurrogate },
	fc.array(fc.oneof(short, withNul, withLoneSurrogate), { minLength: 1, maxLength: 3 }),
	fc.constantFrom<unknown>(
		{ $gt: "" },
		{ $ne: null },
		{ $where: "sleep(1000)" },
		{ $regex: ".*" },
		{ $in: ["a"] },
		JSON.parse('{"__proto__":{"isAdmin":true}}'),
	),
	// Over every field's limit (the longest text field takes 10,000 characters), some over the 1 MB body limit too.
	fc.integer({ min: 10_001, max: 1_200_000 }).map(n => "x".repeat(n)),
	fc.integer({ min: 2, max: 2_000 }).map(nested),
	fc.constantFrom<unknown>(1, -1, 1e308, true, {}, [], [[]], "", " ", null),
	fc.constantFrom(...malformedEscapes),
);

const hostile: fc.Arbitrary<Hostile> = fc.oneof(
	{ weight: 6, arbitrary: hostileValue.map(value => ({ kind: "value" as const, value })) },
	{
		weight: 1,
		arbitrary: fc
			.tuple(fc.constantFrom("__proto__" as const, "constructor" as const), hostileValue)
			.map(([key, value]) => ({ kind: "proto" as const, key, value })),
	},
	{
		weight: 1,
		arbitrary: fc.constantFrom(...malformedEscapes).map(escape => ({ kind: "rawEscape" as const, escape })),
	},
);

/**
 * The params a hostile case sends: valid required fields, the hostile value in its field (or wrapped in a prototype
 * key).
 */
function paramsWith(base: Record<string, unknown>, field: string, h: Hostile): Record<string, unknown> {
	switch (h.kind) {
		case "value":
			return { ...base, [field]: h.value };
		case "proto":
			return withOwnProto(
				base,
				h.key === "__proto__"
					? { [field]: h.value, isAdmin: true }
					: { prototype: { [field]: h.value, isAdmin: true } },
			);
		case "rawEscape":
			return base; // the escape goes in as written: see rawPairs
	}
}

/** A JSON scalar as text: callers handle nulls, lists and records first. */
const scalarText = (value: unknown) => String(value);

/** Form and query pairs: lists as repeated names (as an HTML form sends them), records as name[key]. */
function pairsOf(name: string, value: unknown, out: Array<[string, string]> = []): Array<[string, string]> {
	if (value === null || value === undefined) out.push([name, ""]);
	else if (Array.isArray(value)) for (const item of value) pairsOf(name, item, out);
	else if (typeof value === "object") for (const [k, v] of Object.entries(value)) pairsOf(`${name}[${k}]`, v, out);
	else out.push([name, scalarText(value)]);
	return out;
}

/** Percent-encodes the UTF-8 bytes of a text (a lone surrogate has none: it is sent as U+FFFD, as a browser would). */
function percentEncoded(text: string): string {
	let out = "";
	for (const byte of Buffer.from(text, "utf8"))
		out += /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
			? String.fromCharCode(byte)
			: `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;
	return out;
}

function urlEncoded(params: Record<string, unknown>, raw: Array<[string, string]> = []): string {
	const pairs = Object.entries(params).flatMap(([k, v]) => pairsOf(k, v));
	return [
		...pairs.map(([k, v]) => `${percentEncoded(k)}=${percentEncoded(v)}`),
		...raw.map(([k, v]) => `${percentEncoded(k)}=${v}`),
	].join("&");
}

/**
 * What came back, on any surface: the status (SOAP's X-Status when it answers 200 with a failure) and the field errors.
 */
interface Answer {
	status: number;
	errors: FieldErrors;
	text: string;
}

describe("hostile input is refused with a 4xx on every surface, never a 5xx, and changes nothing", () => {
	let plaza: TestPlaza;
	let user: Session;
	const callers: Record<CallerKind, () => Record<string, string>> = {
		admin: () => ({ Authorization: `Bearer ${ADMIN_KEY}` }),
		user: () => ({ "X-ss-id": user.token }),
		anonymous: () => ({}),
	};

	const snapshot = () => recordsSnapshot(plaza, [user.userId]);

	async function send(
		surface: BodySurface,
		caller: CallerKind,
		op: Operation,
		params: Record<string, unknown>,
		rawPairs: Array<[string, string]> = [],
	): Promise<Answer> {
		return tallied(surface, await sent(surface, caller, op, params, rawPairs));
	}

	async function sent(
		surface: BodySurface,
		caller: CallerKind,
		op: Operation,
		params: Record<string, unknown>,
		rawPairs: Array<[string, string]>,
	): Promise<Answer> {
		const headers = callers[caller]();
		const method = op.reads ? "GET" : "POST";
		let reply: Reply<ErrorBody | undefined>;
		switch (surface) {
			case "json": {
				const query = rawPairs.length ? `?${urlEncoded({}, rawPairs)}` : "";
				reply = await plaza.http("POST", `/json/reply/${op.name}${query}`, JSON.stringify(params), {
					...headers,
					"Content-Type": "application/json",
				});
				break;
			}
			case "query":
				reply = await plaza.http(method, `/json/reply/${op.name}?${urlEncoded(params, rawPairs)}`, undefined, headers);
				break;
			case "form":
				reply = await plaza.http("POST", `/json/reply/${op.name}`, urlEncoded(params, rawPairs), {
					...headers,
					"Content-Type": "application/x-www-form-urlencoded",
				});
				break;
			case "multipart": {
				const form = new FormData();
				for (const [k, v] of Object.entries(params).flatMap(([k, v]) => pairsOf(k, v))) form.append(k, v);
				for (const [k, v] of rawPairs) form.append(k, v);
				const res = await fetch(`${plaza.url}/json/reply/${op.name}`, { method: "POST", body: form, headers });
				const text = await res.text();
				reply = { status: res.status, headers: res.headers, text, body: parsed(text) };
				break;
			}
			case "xml":
			case "soap": {
				// The escape goes in as an element's text: XML has no %-escapes, so it is a value like another.
				const withRaw = { ...params, ...Object.fromEntries(rawPairs) };
				const answer = await sendOn(plaza, surface, headers, op, withRaw);
				return { ...answer, errors: surface === "xml" ? (parsed(answer.text)?.ResponseStatus?.Errors ?? []) : [] };
			}
		}
		return { status: reply.status, errors: reply.body?.ResponseStatus?.Errors ?? [], text: reply.text };
	}

	beforeAll(async () => {
		plaza = await startPlaza();
		user = await plaza.signUp();
	});
	afterAll(() => plaza?.stop());

	const withText = catalogue.filter(op => textFieldsOf(op).length > 0);

	/** Every text field of the operation holding `bad` (a list: its second item), beside valid required fields. */
	function allTextFields(op: Operation, bad: string): Record<string, unknown> {
		const params = validBase(op, user.userId);
		for (const f of textFieldsOf(op)) params[f.name] = isList(f) ? ["fine", bad] : bad;
		return params;
	}
	const expectedErrors = (op: Operation) =>
		textFieldsOf(op).map((f): unknown =>
			expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: isList(f) ? `${f.name}[1]` : f.name }),
		);

	describe.each([
		["a NUL", "json", "Fi\0rst"],
		["a lone high surrogate", "json", "Fi\ud800rst"],
		["a lone low surrogate", "json", "\udc00First"],
		["a NUL", "query", "Fi\0rst"],
		["a NUL", "form", "Fi\0rst"],
		["a NUL", "multipart", "Fi\0rst"],
	] as const)("%s in a %s request", (_what, surface, bad) => {
		test.each(withText.map(op => [op.name, op] as const))(
			"%s: 400, an InvalidValue error for every text field, nothing written",
			async (_name, op) => {
				const before = await snapshot();
				const answer = await send(surface, "admin", op, allTextFields(op, bad));
				expect({ status: answer.status, errors: answer.errors }).toEqual({
					status: 400,
					errors: expect.arrayContaining(expectedErrors(op)),
				});
				expect(await snapshot()).toEqual(before);
			},
		);
	});

	const xmlBads = [
		["a NUL as a character reference", "Fi&#0;rst"],
		["a NUL as a character", "Fi\0rst"],
		["a lone surrogate as a character reference", "Fi&#xD800;rst"],
		["a C0 control character as a character reference", "Fi&#x1;rst"],
	];
	/** The request element with every text field holding `bad` as written (a list: in its one item). */
	const xmlRequest = (op: Operation, bad: string) =>
		`<${op.name} xmlns="${TYPES}">${textFieldsOf(op)
			.map(f =>
				isList(f)
					? `<${f.name}><string xmlns="${ARRAYS}">${bad}</string></${f.name}>`
					: `<${f.name}>${bad}</${f.name}>`,
			)
			.join("")}</${op.name}>`;

	test.each(xmlBads)("SOAP: %s is refused as 400 for every operation, nothing written", async (_what, bad) => {
		const before = await snapshot();
		for (const op of withText) {
			const reply = tallied("soap", await plaza.admin<undefined>("POST", "/soap11", envelope(xmlRequest(op, bad))));
			expect([op.name, reply.status, reply.headers.get("X-Status")]).toEqual([op.name, 400, "400"]);
			expect(reply.text).toContain("InvalidBody");
		}
		expect(await snapshot()).toEqual(before);
	});

	test.each(xmlBads)(
		"an XML body (application/xml, as ServiceStack's XML format): %s is a 400 InvalidBody for every operation, on its REST routes that take a body and the generic routes, nothing written",
		async (_what, bad) => {
			const before = await snapshot();
			for (const op of withText) {
				// A write's REST route takes a body; a read's has none to send.
				const rest = op.routes
					.filter(r => r.method !== "GET")
					.map(r => [r.method, r.path.replace(/:(\w+)/g, () => user.userId)]);
				for (const [method, path] of [...rest, ["POST", `/json/reply/${op.name}`], ["POST", `/xml/reply/${op.name}`]]) {
					// /xml/reply answers in XML whatever Accept says; the others in JSON: both name the ErrorCode.
					const reply = tallied(
						"xml",
						await plaza.http<ErrorBody>(method, path, xmlRequest(op, bad), {
							...callers.admin(),
							"Content-Type": "application/xml",
							Accept: "application/json",
						}),
					);
					expect([
						op.name,
						path,
						reply.status,
						/"ErrorCode":"InvalidBody"|<ErrorCode>InvalidBody</.test(reply.text),
					]).toEqual([op.name, path, 400, true]);
				}
			}
			expect(await snapshot()).toEqual(before);
		},
	);

	test("an XML body that is not UTF-8, or nests 100,000 deep, or declares an entity, is a 400; nothing written, the gateway still answers", async () => {
		const before = await snapshot();
		const bodies = [
			Buffer.concat([
				Buffer.from(`<CreateUser xmlns="${TYPES}"><FirstName>A`),
				Buffer.from([0xff, 0xc0, 0xae]),
				Buffer.from("</FirstName><LastName>B</LastName></CreateUser>"),
			]),
			Buffer.concat([
				Buffer.from(`<CreateUser xmlns="${TYPES}"><FirstName>A`),
				Buffer.from([0xed, 0xa0, 0x80]),
				Buffer.from("</FirstName><LastName>B</LastName></CreateUser>"),
			]),
			Buffer.from(
				`<CreateUser xmlns="${TYPES}"><FirstName>${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}</FirstName><LastName>B</LastName></CreateUser>`,
			),
			Buffer.from(
				`<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><CreateUser xmlns="${TYPES}"><FirstName>&b;</FirstName><LastName>B</LastName></CreateUser>`,
			),
			Buffer.from(`<__proto__ xmlns="${TYPES}"><isAdmin>true</isAdmin></__proto__>`),
			Buffer.from(`<CreateUser xmlns="${TYPES}"><FirstName><$gt/></FirstName><LastName>B</LastName></CreateUser>`),
		];
		for (const body of bodies) {
			const res = await fetch(`${plaza.url}/json/reply/CreateUser`, {
				method: "POST",
				body,
				headers: { ...callers.admin(), "Content-Type": "application/xml" },
			});
			const reply = tallied("xml", { status: res.status, body: parsed(await res.text()) });
			expect([body.subarray(0, 80).toString("latin1"), reply.status]).toEqual([
				body.subarray(0, 80).toString("latin1"),
				400,
			]);
		}
		expect(await snapshot()).toEqual(before);
		expect(Object.prototype).not.toHaveProperty("isAdmin");
		expect((await plaza.http("GET", "/health")).status).toBe(200);
	});

	test("a NUL in a text field taken from the path is a 400 field error too", async () => {
		const reply = await plaza.http<ErrorBody>("GET", "/auth/cred%00entials");
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: "provider" }),
		]);
	});

	test("a NUL or a lone surrogate sent by an anonymous caller to a public operation is a 400, and registers no one", async () => {
		const before = await snapshot();
		for (const [field, bad] of [
			["FirstName", "A\0"],
			["UserName", "name\ud800"],
			["Password", "password\0password"],
			["DisplayName", "\udfff"],
		]) {
			const reply = await plaza.http<ErrorBody>("POST", "/register", {
				UserName: `anon${Date.now()}`,
				Password: "correct horse battery",
				FirstName: "A",
				LastName: "B",
				[field]: bad,
			});
			expect([field, reply.status, reply.body.ResponseStatus.Errors]).toEqual([
				field,
				400,
				[expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: field })],
			]);
		}
		const search = await user.http<ErrorBody>("GET", `/Search/Posts?TagNames=${encodeURIComponent("a,b")}%00`);
		expect(search.status).toBe(400);
		expect(search.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: "TagNames" }),
		]);
		expect(await snapshot()).toEqual(before);
	});

	test("text that is well formed is still taken whole: a pair of surrogates (an emoji), U+FFFD, other control characters", async () => {
		const reply = await plaza.admin("POST", "/Users", {
			FirstName: "Ann 😀",
			LastName: "\ufffd\u0001",
			Interests: ["🎸", "tab\there"],
		});
		expect(reply.status).toBe(200);
		const found = await plaza.admin("GET", `/Users/${reply.body.Id}`);
		expect(found.body).toMatchObject({ FirstName: "Ann 😀", LastName: "\ufffd\u0001", Interests: ["🎸", "tab\there"] });
	});

	test("bytes that are not UTF-8 in a JSON or multipart body are read as U+FFFD (stored as such); a SOAP envelope that is not UTF-8 is a 400", async () => {
		const json = Buffer.concat([
			Buffer.from('{"FirstName":"A'),
			Buffer.from([0xff, 0xc0, 0xae]),
			Buffer.from('","LastName":"B"}'),
		]);
		const viaJson = await fetch(`${plaza.url}/Users`, {
			method: "POST",
			body: json,
			headers: { "Content-Type": "application/json", Authorization: `Bearer ${ADMIN_KEY}` },
		});
		expect(viaJson.status).toBe(200);
		expect(((await viaJson.json()) as { FirstName: string }).FirstName).toMatch(/^A\ufffd+$/);

		const multipart = Buffer.concat([
			Buffer.from('--b\r\nContent-Disposition: form-data; name="FirstName"\r\n\r\nA'),
			Buffer.from([0xff, 0xc0, 0xae]),
			Buffer.from('\r\n--b\r\nContent-Disposition: form-data; name="LastName"\r\n\r\nB\r\n--b--\r\n'),
		]);
		const viaMultipart = await fetch(`${plaza.url}/Users`, {
			method: "POST",
			body: multipart,
			headers: { "Content-Type": "multipart/form-data; boundary=b", Authorization: `Bearer ${ADMIN_KEY}` },
		});
		expect(viaMultipart.status).toBe(200);
		expect(((await viaMultipart.json()) as { FirstName: string }).FirstName).toMatch(/^A\ufffd+$/);

		// In a form (or a query string) an escape that decodes to no UTF-8 text is kept as written: well-formed text too.
		const form = await plaza.http("POST", "/Users", "FirstName=A%FF%C0%AE&LastName=B", {
			Authorization: `Bearer ${ADMIN_KEY}`,
			"Content-Type": "application/x-www-form-urlencoded",
		});
		expect(form.status).toBe(200);
		expect(form.body.FirstName).toBe("A%FF%C0%AE");

		const before = await snapshot();
		const xml = Buffer.concat([
			Buffer.from(envelope(`<CreateUser xmlns="${TYPES}"><FirstName>A`)),
			Buffer.from([0xff]),
			Buffer.from(`</FirstName><LastName>B</LastName></CreateUser>`),
		]);
		const soap = await fetch(`${plaza.url}/soap11`, {
			method: "POST",
			body: xml,
			headers: { "Content-Type": "text/xml; charset=utf-8", Authorization: `Bearer ${ADMIN_KEY}` },
		});
		expect(soap.status).toBe(400);
		expect(await soap.text()).toContain("not UTF-8");
		expect(await snapshot()).toEqual(before);
	});

	test("a form with more fields than the parser takes is a 413, not a 500", async () => {
		const body = Array.from({ length: 1500 }, (_, i) => `f${i}=x`).join("&");
		const reply = await plaza.http<ErrorBody>("POST", "/json/reply/CreateUser", body, {
			Authorization: `Bearer ${ADMIN_KEY}`,
			"Content-Type": "application/x-www-form-urlencoded",
		});
		expect(reply.status).toBe(413);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("PayloadTooLarge");
	});

	/**
	 * JSON text of a value nested `depth` levels (objects and lists in turn), written out: JSON.stringify would recurse
	 * as deep.
	 */
	const deepJson = (depth: number) =>
		`${'{"Value":['.repeat(depth >> 1)}${depth % 2 ? '{"Value":"deep"}' : '"deep"'}${"]}".repeat(depth >> 1)}`;
	/**
	 * A form or query field name whose value nests `depth` levels deep, the request counting as one (`Name[Value][0]…`).
	 */
	const deepName = (name: string, depth: number) =>
		name + Array.from({ length: depth - 1 }, (_, i) => (i % 2 ? "[0]" : "[Value]")).join("");
	/** A request object's JSON text: valid fields, and `raw` JSON text under `key` (which may be "__proto__"). */
	const jsonWith = (base: Record<string, unknown>, key: string, raw: string) =>
		`{${[
			`${JSON.stringify(key)}:${raw}`,
			...Object.entries(base)
				.filter(([k]) => k !== key)
				.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`),
		].join(",")}}`;
	const refusedAsBody = (reply: { status: number; text: string }) => ({
		status: reply.status,
		invalidBody: /"ErrorCode":"InvalidBody"|<ErrorCode>InvalidBody</.test(reply.text),
	});

	test("a body nested 10,000 deep (in a field, at the top, in an unknown field, under __proto__) is a 400 InvalidBody for every operation: JSON on its REST routes, the generic route and batches, form, query, XML and SOAP; nothing written", async () => {
		const before = await snapshot();
		const depth = 10_000;
		const deep = deepJson(depth);
		let sent = 0;
		for (const op of catalogue) {
			const base = validBase(op, user.userId);
			const field = fieldsOf(op)[0]?.name ?? "Value";
			const jsonBodies: Array<[string, string]> = [
				["in a field", jsonWith(base, field, deep)],
				["at the top", deep],
				["in an unknown field", jsonWith(base, "NoSuchField", deep)],
				["under __proto__", jsonWith(base, "__proto__", deep)],
			];
			// A REST route that takes a body (a GET's fields travel in its query string, below).
			const rest = op.routes
				.filter(r => r.method !== "GET")
				.map(r => [r.method, r.path.replace(/:(\w+)/g, () => user.userId)]);
			for (const [where, body] of jsonBodies) {
				for (const [method, path] of [...rest, ["POST", `/json/reply/${op.name}`]]) {
					const reply = tallied(
						"json",
						await plaza.http(method, path, body, { ...callers.admin(), "Content-Type": "application/json" }),
					);
					expect([op.name, method, path, where, refusedAsBody(reply)]).toEqual([
						op.name,
						method,
						path,
						where,
						{ status: 400, invalidBody: true },
					]);
					sent++;
				}
			}
			const batch = tallied(
				"json",
				await plaza.http("POST", `/json/reply/${op.name}[]`, `[${jsonWith(base, field, deep)}]`, {
					...callers.admin(),
					"Content-Type": "application/json",
				}),
			);
			expect([op.name, "batch", refusedAsBody(batch)]).toEqual([op.name, "batch", { status: 400, invalidBody: true }]);

			// Form names: deeper than the JSON above would fit in a URL; a query string over 16 KB is a 431 before any of
			// this.
			for (const name of [field, "NoSuchField", "__proto__"]) {
				const form = `${urlEncoded(base)}&${deepName(name, depth)}=deep`;
				const byForm = tallied(
					"form",
					await plaza.http("POST", `/json/reply/${op.name}`, form, {
						...callers.admin(),
						"Content-Type": "application/x-www-form-urlencoded",
					}),
				);
				const query = `${urlEncoded(base)}&${deepName(name, 1_000)}=deep`;
				const byQuery = tallied(
					"query",
					await plaza.http(op.reads ? "GET" : "POST", `/json/reply/${op.name}?${query}`, undefined, callers.admin()),
				);
				expect([op.name, name, refusedAsBody(byForm), refusedAsBody(byQuery)]).toEqual([
					op.name,
					name,
					{ status: 400, invalidBody: true },
					{ status: 400, invalidBody: true },
				]);
			}

			const xml = `<${op.name} xmlns="${TYPES}"><${field}>${"<Value>".repeat(depth)}${"</Value>".repeat(depth)}</${field}></${op.name}>`;
			const byXml = tallied(
				"xml",
				await plaza.http("POST", `/json/reply/${op.name}`, xml, {
					...callers.admin(),
					"Content-Type": "application/xml",
				}),
			);
			const bySoap = tallied("soap", await plaza.admin<undefined>("POST", "/soap11", envelope(xml)));
			expect([
				op.name,
				refusedAsBody(byXml),
				bySoap.headers.get("X-Status"),
				bySoap.text.includes("InvalidBody"),
			]).toEqual([op.name, { status: 400, invalidBody: true }, "400", true]);
		}
		expect(sent).toBeGreaterThan(catalogue.length * 4);
		expect(await snapshot()).toEqual(before);
		expect(Object.prototype).not.toHaveProperty("Value");
	});

	test("a body nested as deep as the limit (64 levels, the request counting as one) is still read; one level more is a 400", async () => {
		const base = { FirstName: "Deep", LastName: "Enough" };
		const at = (depth: number) =>
			plaza.http("POST", "/json/reply/CreateUser", jsonWith(base, "NoSuchField", deepJson(depth - 1)), {
				...callers.admin(),
				"Content-Type": "application/json",
			});
		expect((await at(64)).status).toBe(200);
		expect(refusedAsBody(await at(65))).toEqual({ status: 400, invalidBody: true });
		const form = (depth: number) =>
			plaza.http("POST", "/json/reply/CreateUser", `${urlEncoded(base)}&${deepName("NoSuchField", depth)}=x`, {
				...callers.admin(),
				"Content-Type": "application/x-www-form-urlencoded",
			});
		expect((await form(64)).status).toBe(200);
		expect(refusedAsBody(await form(65))).toEqual({ status: 400, invalidBody: true });
	});

	test("a JSON body nested 200,000 deep is refused as a 400, and the gateway still answers", async () => {
		const deep = `{"FirstName":${"[".repeat(200_000)}${"]".repeat(200_000)},"LastName":"B"}`;
		const reply = await plaza.admin<ErrorBody>("POST", "/Users", deep);
		expect(reply.status).toBeGreaterThanOrEqual(400);
		expect(reply.status).toBeLessThan(500);
		expect((await plaza.http("GET", "/health")).status).toBe(200);
	});

	const hostileSurfaces: BodySurface[] = ["json", "query", "form", "multipart", "xml", "soap"];
	/**
	 * The records as the last judged request left them: the next one's "before" (one snapshot a case, not two). Each test
	 * starts afresh.
	 */
	let known: Record<string, unknown> | undefined;
	beforeEach(() => {
		known = undefined;
	});

	/**
	 * Sends one hostile case and judges the answer: never a 5xx; a refusal changes nothing; and, for an
	 * admin (who passes every access check), text no store can keep is refused by validation, naming its field.
	 */
	async function judge(
		op: Operation,
		declared: Field,
		h: Hostile,
		surface: BodySurface,
		caller: CallerKind,
	): Promise<Answer> {
		const field = declared.name;
		const raw: Array<[string, string]> = h.kind === "rawEscape" ? [[field, h.escape]] : [];
		// An admin's DeleteAccount that gets through is a real deletion: it is aimed at a user made for it.
		const sacrificial = op.name === "DeleteAccount";
		const subject = sacrificial ? (await plaza.signUp()).userId : user.userId;
		const before = (!sacrificial && known) || (await snapshot());
		const answer = await send(surface, caller, op, paramsWith(validBase(op, subject), field, h), raw);
		expect({
			op: op.name,
			field,
			surface,
			caller,
			status: answer.status < 500 ? "not 5xx" : answer.status,
			text: answer.status < 500 ? "" : answer.text,
		}).toEqual({ op: op.name, field, surface, caller, status: "not 5xx", text: "" });
		known = await snapshot();
		if (answer.status >= 400) expect(known).toEqual(before);
		if (caller === "admin" && isText(declared) && h.kind === "value" && carriesUnstorable(h.value, surface)) {
			const refusal =
				// XML refuses the character reference itself (InvalidBody), before any field is read.
				surface === "soap" || surface === "xml"
					? { status: 400 }
					: {
							status: 400,
							errors: expect.arrayContaining([
								expect.objectContaining({
									ErrorCode: "InvalidValue",
									FieldName: expect.stringMatching(new RegExp(`^${field}(\\[\\d+\\])?$`)),
								}),
							]),
						};
			expect({ op: op.name, field, surface, ...answer, text: undefined }).toMatchObject({
				op: op.name,
				field,
				surface,
				...refusal,
			});
		}
		return answer;
	}

	/**
	 * The same few hostile kinds in every field of every operation, surfaces taken in turn: no field is left to chance.
	 */
	const sweep: Array<[string, (f: Field) => Hostile]> = [
		["an operator object", () => ({ kind: "value", value: { $gt: "" } })],
		["text no store keeps", f => ({ kind: "value", value: isList(f) ? ["fine", "a\0b"] : "a\0b\ud800" })],
		["a value nested 64 deep", () => ({ kind: "value", value: nested(64) })],
		["a value over every limit", () => ({ kind: "value", value: "x".repeat(10_001) })],
		[
			"prototype keys around it",
			f => ({ kind: "proto", key: f.name.length % 2 ? "__proto__" : "constructor", value: "x" }),
		],
		[
			"a malformed escape",
			f => ({ kind: "rawEscape", escape: malformedEscapes[f.name.length % malformedEscapes.length] }),
		],
	];

	// Half the kinds per field in `npm test` (in turn, so each kind reaches every other field), all of them in a long
	// run.
	const kindsPerField = process.env.PLAZA_FUZZ_RUNS ? sweep.length : sweep.length / 2;

	test(`every field of every operation, ${kindsPerField} of ${sweep.length} hostile kinds each, on the ${hostileSurfaces.length} body and query surfaces in turn, as an admin: never a 5xx, nothing written when refused`, async () => {
		let turn = 0;
		let cases = 0;
		const kindsSeen = new Set<string>();
		for (const op of catalogue) {
			for (const declared of fieldsOf(op)) {
				for (let k = 0; k < kindsPerField; k++) {
					const [kind, make] = sweep[(cases + k) % sweep.length];
					kindsSeen.add(kind);
					await judge(op, declared, make(declared), hostileSurfaces[turn++ % hostileSurfaces.length], "admin");
				}
				cases += 1;
			}
		}
		expect({ fields: cases > 200, kinds: kindsSeen.size }).toEqual({ fields: true, kinds: sweep.length });
		expect(Object.prototype).not.toHaveProperty("isAdmin");
	}, 120_000);

	test(
		`property (seed ${fuzzSeed}, ${fuzzRuns} runs): any hostile value in any field of any operation, on any surface, by any caller, is never a 5xx, and a refused request changes nothing`,
		async () => {
			// "Operation.Field" names, so that a counterexample reads short.
			const fields = new Map<string, { op: Operation; declared: Field }>(
				catalogue.flatMap(op => fieldsOf(op).map(f => [`${op.name}.${f.name}`, { op, declared: f }] as const)),
			);
			const names = [...fields.keys()];
			// Text fields more often: a NUL or a lone surrogate in one is what reached PostgreSQL and answered 500.
			const target = fc.oneof(
				{ weight: 3, arbitrary: fc.constantFrom(...names.filter(k => isText(fields.get(k)!.declared))) },
				{ weight: 1, arbitrary: fc.constantFrom(...names) },
			);
			let refusedByValidation = 0;
			await fc.assert(
				fc.asyncProperty(
					target,
					hostile,
					fc.constantFrom(...hostileSurfaces),
					fc.constantFrom<CallerKind>("admin", "admin", "user", "anonymous"),
					async (name, h, surface, caller) => {
						const { op, declared } = fields.get(name)!;
						if ((await judge(op, declared, h, surface, caller)).status === 400) refusedByValidation += 1;
					},
				),
				{ seed: fuzzSeed, numRuns: fuzzRuns, endOnFailure: true },
			);
			// The runs got past the gateway's door (credentials, routes) to the operations' validation.
			expect(refusedByValidation).toBeGreaterThan(fuzzRuns / 4);
			expect(Object.prototype).not.toHaveProperty("isAdmin");
			expect((await plaza.http("GET", "/health")).status).toBe(200);
			// Asked by an admin: a long run may give the user a new password (an admin sets one without the current), which
			// ends their sessions.
			expect((await plaza.admin("GET", `/Users/${user.userId}`)).status).toBe(200);
		},
		Math.max(60_000, fuzzRuns * 1_000),
	);
});

/** Hostile header values, as bytes: what no client library lets a caller send, a raw socket does. */
const headerValues: Array<[string, Buffer]> = [
	["malformed escapes", Buffer.from("%ff%zz%")],
	["an overlong escape", Buffer.from("%c0%ae%c0%ae")],
	["bytes that are not UTF-8", Buffer.from([0x61, 0xff, 0xc0, 0xae])],
	["a lone surrogate's bytes", Buffer.from([0x61, 0xed, 0xa0, 0x80])],
	["a NUL", Buffer.from("a\0b")],
	["an operator object", Buffer.from('{"$gt":""}')],
	["prototype keys", Buffer.from("__proto__[isAdmin]=true&constructor[prototype][isAdmin]=true")],
	["a huge value", Buffer.from("x".repeat(20_000))],
	["nothing", Buffer.alloc(0)],
];

/**
 * Where a hostile value goes: headers that carry credentials (sent alone: they must never let anyone
 * in), and other headers the gateway reads (sent beside a valid session).
 */
const credentialHeaders: Array<[string, (v: Buffer) => [string, Buffer]]> = [
	["X-ss-id", v => ["X-ss-id", v]],
	["the ss-id cookie", v => ["Cookie", Buffer.concat([Buffer.from("ss-id="), v])]],
	["the ss-pid cookie", v => ["Cookie", Buffer.concat([Buffer.from("ss-opt=perm; ss-pid="), v])]],
	["Basic credentials", v => ["Authorization", Buffer.concat([Buffer.from("Basic "), v])]],
	[
		"Basic credentials, base64",
		v => ["Authorization", Buffer.from(`Basic ${Buffer.concat([v, Buffer.from(":password")]).toString("base64")}`)],
	],
	["a Bearer key", v => ["Authorization", Buffer.concat([Buffer.from("Bearer "), v])]],
	["Authorization", v => ["Authorization", v]],
];
const otherHeaders: Array<[string, (v: Buffer) => [string, Buffer]]> = [
	["a whole Cookie header", v => ["Cookie", v]],
	["Idempotency-Key", v => ["Idempotency-Key", v]],
	["a charset", v => ["Content-Type", Buffer.concat([Buffer.from("application/json; charset="), v])]],
	["Accept", v => ["Accept", v]],
	["X-Forwarded-For", v => ["X-Forwarded-For", v]],
	["Origin", v => ["Origin", v]],
	["Referer", v => ["Referer", v]],
	["If-None-Match", v => ["If-None-Match", v]],
	["traceparent", v => ["traceparent", v]],
	["X-Request-ID", v => ["X-Request-ID", v]],
	["Accept-Encoding", v => ["Accept-Encoding", v]],
];

/**
 * A stand-in valid enough for a path field (a GUID, a number, a name), so that the escape in another field is what is
 * judged.
 */
const pathStandIn = (op: Operation, field: string) =>
	fieldsOf(op).find(f => f.name === field)?.type === "number"
		? "1"
		: field === "provider" || field === "name"
			? "credentials"
			: "0123456789abcdef0123456789abcdef";

describe("malformed escapes, bytes that are not UTF-8, NUL and other hostile values in paths, headers and cookies: a 4xx, never a 5xx, nothing written", () => {
	let plaza: TestPlaza;
	let user: Session;
	const snapshot = () => recordsSnapshot(plaza, [user.userId]);
	beforeAll(async () => {
		plaza = await startPlaza();
		user = await plaza.signUp();
	});
	afterAll(() => plaza?.stop());

	test.each(["/auth/%ff", "/auth/%", "/auth/%c0%ae", "/Users/%E0%A4%A", "/Users/%zz"])(
		"GET %s is a 400, not a 500",
		async path => {
			const reply = tallied("path", await plaza.admin<ErrorBody>("GET", path));
			expect(reply.status).toBe(400);
		},
	);

	test("every REST route of the catalogue, each malformed escape in each path field: a 400, nothing written", async () => {
		const before = await snapshot();
		let routes = 0;
		for (const op of catalogue) {
			for (const route of op.routes) {
				const fields = [...route.path.matchAll(/:(\w+)/g)].map(m => m[1]);
				if (fields.length) routes += 1;
				for (const field of fields) {
					for (const escape of malformedEscapes) {
						const path = route.path.replace(/:(\w+)/g, (_, name: string) =>
							name === field ? `a${escape}` : pathStandIn(op, name),
						);
						const reply = tallied(
							"path",
							await plaza.http<ErrorBody>(
								route.method,
								path,
								route.method === "GET" || route.method === "DELETE" ? undefined : {},
								{ Authorization: `Bearer ${ADMIN_KEY}` },
							),
						);
						expect([route.method, path, reply.status]).toEqual([route.method, path, 400]);
					}
				}
			}
		}
		expect(routes).toBeGreaterThan(30);
		expect(await snapshot()).toEqual(before);
	});

	test("raw bytes that are not UTF-8, and a NUL, in the request line (path and query): a 4xx, and the gateway still answers", async () => {
		const lines = [
			Buffer.concat([Buffer.from("GET /Users/"), Buffer.from([0xff, 0xfe]), Buffer.from(" HTTP/1.1")]),
			Buffer.concat([Buffer.from("GET /Users?Limit="), Buffer.from([0xc0, 0xae]), Buffer.from(" HTTP/1.1")]),
			Buffer.concat([
				Buffer.from("GET /json/reply/FindUser?Id="),
				Buffer.from([0xed, 0xa0, 0x80]),
				Buffer.from(" HTTP/1.1"),
			]),
			Buffer.from("GET /Users/a\0b HTTP/1.1"),
			Buffer.from(
				"GET /Search/Posts?TagNames=a%00b&__proto__[isAdmin]=true&constructor[prototype][isAdmin]=true HTTP/1.1",
			),
			Buffer.from(`GET /Users?${"Limit=1&".repeat(2_000)} HTTP/1.1`),
			Buffer.from(`GET /Users/${"%zz".repeat(3_000)} HTTP/1.1`),
		];
		for (const line of lines) {
			const answer = tallied("raw bytes", await rawRequest(plaza.url, line, [["X-ss-id", user.token]]));
			const shown = line.subarray(0, 60).toString("latin1");
			expect([shown, answer.status >= 400 && answer.status < 500]).toEqual([shown, true]);
		}
		expect(Object.prototype).not.toHaveProperty("isAdmin");
		expect((await plaza.http("GET", "/health")).status).toBe(200);
	});

	/**
	 * CreatePost sent as raw bytes with these headers (JSON unless they name a Content-Type), tallied under the hostile
	 * header's kind.
	 */
	const rawPost = async (hostile: string, headers: Array<[string, Buffer | string]>, content: string) => {
		const typed = headers.some(([name]) => name === "Content-Type")
			? headers
			: [...headers, ["Content-Type", "application/json"] as [string, string]];
		return tallied(
			hostile === "Cookie" ? "cookie" : "header",
			await rawRequest(
				plaza.url,
				"POST /Posts HTTP/1.1",
				typed,
				JSON.stringify({ AuthorId: user.userId, Content: content }),
			),
		);
	};

	test(`a hostile value in a credential header or cookie (${credentialHeaders.length} places × ${headerValues.length} values) never lets anyone in: 401 or another 4xx, on a read and on a write, nothing written`, async () => {
		// The same raw request with the valid session is answered: the refusals below are the hostile value's doing.
		expect(
			(await rawRequest(plaza.url, `GET /Users/${user.userId} HTTP/1.1`, [["X-ss-id", Buffer.from(user.token)]]))
				.status,
		).toBe(200);
		for (const [place, header] of credentialHeaders) {
			for (const [what, value] of headerValues) {
				const [name, bytes] = header(value);
				const read = tallied(
					name === "Cookie" ? "cookie" : "header",
					await rawRequest(plaza.url, `GET /Users/${user.userId} HTTP/1.1`, [[name, bytes]]),
				);
				const before = await snapshot();
				const write = await rawPost(name, [[name, bytes]], "sent with a hostile credential");
				expect([
					place,
					what,
					read.status >= 400 && read.status < 500,
					write.status >= 400 && write.status < 500,
				]).toEqual([place, what, true, true]);
				expect([place, what, await snapshot()]).toEqual([place, what, before]);
			}
		}
	});

	test(`a hostile value in another header the gateway reads (${otherHeaders.length} headers × ${headerValues.length} values), beside a valid session: never a 5xx; a refused write writes nothing`, async () => {
		for (const [place, header] of otherHeaders) {
			for (const [what, value] of headerValues) {
				const [name, bytes] = header(value);
				const read = tallied(
					name === "Cookie" ? "cookie" : "header",
					await rawRequest(plaza.url, `GET /Users/${user.userId} HTTP/1.1`, [
						["X-ss-id", user.token],
						[name, bytes],
					]),
				);
				const before = await snapshot();
				const write = await rawPost(
					name,
					[
						["X-ss-id", user.token],
						[name, bytes],
					],
					"sent with a hostile header",
				);
				expect([place, what, read.status < 500, write.status < 500]).toEqual([place, what, true, true]);
				if (write.status >= 400) expect([place, what, await snapshot()]).toEqual([place, what, before]);
			}
		}
		expect((await user.http("GET", `/Users/${user.userId}`)).status).toBe(200);
	});

	test("a malformed cookie is ignored: /health and a read still answer", async () => {
		expect(
			tallied("cookie", await plaza.http("GET", "/health", undefined, { Cookie: "_ga=%ZZ; ss-id=%ff" })).status,
		).toBe(200);
		expect(tallied("cookie", await plaza.http("GET", "/auth", undefined, { Cookie: "ss-id=%ff" })).status).toBe(401);
	});

	test("Basic credentials whose user name holds a NUL are simply wrong (401), on every engine", async () => {
		const reply = tallied(
			"header",
			await plaza.http<ErrorBody>("GET", "/auth", undefined, {
				Authorization: `Basic ${Buffer.from("ad\0min:password").toString("base64")}`,
			}),
		);
		expect(reply.status).toBe(401);
	});
});

function parsed(text: string): ErrorBody | undefined {
	try {
		return JSON.parse(text) as ErrorBody;
	} catch {
		return undefined;
	}
}
