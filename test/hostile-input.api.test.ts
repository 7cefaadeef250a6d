/**
 * Issue 13, "Bad input answered 500": hostile values in any request field of any operation, on every
 * surface (JSON body, query string, form and multipart bodies, SOAP), are refused as 4xx, never a 5xx,
 * and a refused request changes nothing. A NUL or a lone surrogate in any text field is a 400 with a
 * field error naming it. Runs on the in-memory store and, as project api-on-postgres, on PostgreSQL
 * (which refuses both in text and JSON and so answered 500). The property-based part is seeded (13);
 * PLAZA_FUZZ_RUNS=5000 (and PLAZA_FUZZ_SEED) runs it longer on demand.
 */
import fc from "fast-check";
import { catalogue, Operation } from "../shared/catalogue";
import { ADMIN_KEY, ErrorBody, Reply, Session, startPlaza, TestPlaza } from "./support/plaza";
import { ARRAYS, envelope, TYPES } from "./support/soap";

const fuzzRuns = Number(process.env.PLAZA_FUZZ_RUNS ?? 120);
const fuzzSeed = Number(process.env.PLAZA_FUZZ_SEED ?? 13);

type Surface = "json" | "query" | "form" | "multipart" | "soap";
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
	return Object.defineProperty({ ...fields }, "__proto__", { value: proto, enumerable: true, writable: true, configurable: true });
}

const short = fc.string({ maxLength: 6 });
const withNul = fc.tuple(short, short).map(([a, b]) => `${a}\0${b}`);
// fc.string() is ASCII, so the surrogate stays unpaired.
const withLoneSurrogate = fc.tuple(short, fc.integer({ min: 0xd800, max: 0xdfff }), short).map(([a, s, b]) => a + String.fromCharCode(s) + b);
const malformedEscapes = ["%", "%%", "%zz", "%ff", "%c0%ae", "%ed%a0%80", "%u0000", "%E0%A4%A", "%00"];

const unstorable = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a value holds a NUL or a lone surrogate once sent on a surface (a URL, a form or multipart carries UTF-8: a lone surrogate arrives as U+FFFD). */
function carriesUnstorable(value: unknown, surface: Surface): boolean {
	return (Array.isArray(value) ? value : [value]).some(v => typeof v === "string" && (surface === "json" || surface === "soap" ? unstorable.test(v) : v.includes("\0")));
}

/**
 * What goes in the request: the hostile value in one field, or around the request as prototype keys,
 * or a malformed %-escape written as is (rawPairs: in the query string, form or multipart part, SOAP element).
 */
type Hostile = { kind: "value"; value: unknown } | { kind: "proto"; key: "__proto__" | "constructor"; value: unknown } | { kind: "rawEscape"; escape: string };

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 3, arbitrary: withNul },
	{ weight: 3, arbitrary: withLoneSurrogate },
	fc.array(fc.oneof(short, withNul, withLoneSurrogate), { minLength: 1, maxLength: 3 }),
	fc.constantFrom<unknown>({ $gt: "" }, { $ne: null }, { $where: "sleep(1000)" }, { $regex: ".*" }, { $in: ["a"] }, JSON.parse('{"__proto__":{"isAdmin":true}}')),
	// Over every field's limit (the longest text field takes 10,000 characters), some over the 1 MB body limit too.
	fc.integer({ min: 10_001, max: 1_200_000 }).map(n => "x".repeat(n)),
	fc.integer({ min: 2, max: 2_000 }).map(nested),
	fc.constantFrom<unknown>(1, -1, 1e308, true, {}, [], [[]], "", " ", null),
	fc.constantFrom(...malformedEscapes),
);

const hostile: fc.Arbitrary<Hostile> = fc.oneof(
	{ weight: 6, arbitrary: hostileValue.map(value => ({ kind: "value" as const, value })) },
	{ weight: 1, arbitrary: fc.tuple(fc.constantFrom("__proto__" as const, "constructor" as const), hostileValue).map(([key, value]) => ({ kind: "proto" as const, key, value })) },
	{ weight: 1, arbitrary: fc.constantFrom(...malformedEscapes).map(escape => ({ kind: "rawEscape" as const, escape })) },
);

/** The params a hostile case sends: valid required fields, the hostile value in its field (or wrapped in a prototype key). */
function paramsWith(base: Record<string, unknown>, field: string, h: Hostile): Record<string, unknown> {
	switch (h.kind) {
		case "value":
			return { ...base, [field]: h.value };
		case "proto":
			return withOwnProto(base, h.key === "__proto__" ? { [field]: h.value, isAdmin: true } : { prototype: { [field]: h.value, isAdmin: true } });
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
	for (const byte of Buffer.from(text, "utf8")) out += /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;
	return out;
}

function urlEncoded(params: Record<string, unknown>, raw: Array<[string, string]> = []): string {
	const pairs = Object.entries(params).flatMap(([k, v]) => pairsOf(k, v));
	return [...pairs.map(([k, v]) => `${percentEncoded(k)}=${percentEncoded(v)}`), ...raw.map(([k, v]) => `${percentEncoded(k)}=${v}`)].join("&");
}

/** Text as XML character data; characters XML cannot hold go as character references, which a parser must refuse. */
function xmlText(text: string): string {
	return (
		text
			.replace(/&/g, "&amp;")
			.replace(/</g, "&lt;")
			.replace(/>/g, "&gt;")
			// eslint-disable-next-line no-control-regex -- escaping control characters is the point
			.replace(/[\0-\x08\x0B\x0C\x0E-\x1F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, c => `&#x${c.charCodeAt(0).toString(16)};`)
	);
}

function xmlName(name: string): string {
	const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, "");
	return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function xmlOf(name: string, value: unknown): string {
	const tag = xmlName(name);
	if (value === null || value === undefined) return `<${tag} xmlns:i="http://www.w3.org/2001/XMLSchema-instance" i:nil="true"/>`;
	if (Array.isArray(value)) return `<${tag}>${value.map(item => xmlOf("string", item).replace(/^<string/, `<string xmlns="${ARRAYS}"`)).join("")}</${tag}>`;
	if (typeof value === "object")
		return `<${tag}>${Object.entries(value)
			.map(([k, v]) => xmlOf(k, v))
			.join("")}</${tag}>`;
	return `<${tag}>${xmlText(scalarText(value))}</${tag}>`;
}

function soapEnvelope(op: Operation, params: Record<string, unknown>): string {
	return envelope(
		`<${op.name} xmlns="${TYPES}">${Object.entries(params)
			.map(([k, v]) => xmlOf(k, v))
			.join("")}</${op.name}>`,
	);
}

/** What came back, on any surface: the status (SOAP's X-Status when it answers 200 with a failure) and the field errors. */
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

	/** The rows of every domain table, and the signed-in user's own record: what a refused request must leave as it was. */
	const tables: Record<string, string[]> = {
		users: ["users"],
		sessions: ["sessions"],
		graph: ["connections", "networks", "network_members", "subscriptions"],
		posts: ["posts", "post_tags", "post_recipients", "post_activities", "comments"],
		venues: ["venues", "venue_members"],
		systems: ["systems", "work_items", "service_maps"],
		devices: ["user_devices"],
		reservations: ["user_reservations"],
		media: ["media_records"],
	};
	async function snapshot(): Promise<Record<string, unknown>> {
		const counts: Record<string, unknown> = {};
		for (const [service, names] of Object.entries(tables)) {
			const row = await plaza.db(service).get(`SELECT ${names.map(t => `(SELECT COUNT(*) FROM ${t}) AS ${t}`).join(", ")}`);
			for (const t of names) counts[t] = Number((row as Record<string, unknown>)[t]);
		}
		counts.me = await plaza.db("users").get("SELECT * FROM users WHERE id = $1", [user.userId]);
		return counts;
	}

	async function send(surface: Surface, caller: CallerKind, op: Operation, params: Record<string, unknown>, rawPairs: Array<[string, string]> = []): Promise<Answer> {
		const headers = callers[caller]();
		const method = op.reads ? "GET" : "POST";
		let reply: Reply<ErrorBody | undefined>;
		switch (surface) {
			case "json": {
				const query = rawPairs.length ? `?${urlEncoded({}, rawPairs)}` : "";
				reply = await plaza.http("POST", `/json/reply/${op.name}${query}`, JSON.stringify(params), { ...headers, "Content-Type": "application/json" });
				break;
			}
			case "query":
				reply = await plaza.http(method, `/json/reply/${op.name}?${urlEncoded(params, rawPairs)}`, undefined, headers);
				break;
			case "form":
				reply = await plaza.http("POST", `/json/reply/${op.name}`, urlEncoded(params, rawPairs), { ...headers, "Content-Type": "application/x-www-form-urlencoded" });
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
			case "soap": {
				const withRaw = { ...params, ...Object.fromEntries(rawPairs) };
				reply = await plaza.http("POST", "/soap11", soapEnvelope(op, withRaw), { ...headers, "Content-Type": "text/xml; charset=utf-8" });
				const status = Number(reply.headers.get("X-Status") ?? reply.status);
				return { status, errors: [], text: reply.text };
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
	const expectedErrors = (op: Operation) => textFieldsOf(op).map((f): unknown => expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: isList(f) ? `${f.name}[1]` : f.name }));

	describe.each([
		["a NUL", "json", "Fi\0rst"],
		["a lone high surrogate", "json", "Fi\ud800rst"],
		["a lone low surrogate", "json", "\udc00First"],
		["a NUL", "query", "Fi\0rst"],
		["a NUL", "form", "Fi\0rst"],
		["a NUL", "multipart", "Fi\0rst"],
	] as const)("%s in a %s request", (_what, surface, bad) => {
		test.each(withText.map(op => [op.name, op] as const))("%s: 400, an InvalidValue error for every text field, nothing written", async (_name, op) => {
			const before = await snapshot();
			const answer = await send(surface, "admin", op, allTextFields(op, bad));
			expect({ status: answer.status, errors: answer.errors }).toEqual({ status: 400, errors: expect.arrayContaining(expectedErrors(op)) });
			expect(await snapshot()).toEqual(before);
		});
	});

	test.each([
		["a NUL as a character reference", "Fi&#0;rst"],
		["a NUL as a character", "Fi\0rst"],
		["a lone surrogate as a character reference", "Fi&#xD800;rst"],
	])("SOAP: %s is refused as 400 for every operation, nothing written", async (_what, bad) => {
		const before = await snapshot();
		for (const op of withText) {
			const fields = textFieldsOf(op)
				.map(f => (isList(f) ? `<${f.name}><string xmlns="${ARRAYS}">${bad}</string></${f.name}>` : `<${f.name}>${bad}</${f.name}>`))
				.join("");
			const reply = await plaza.admin<undefined>("POST", "/soap11", envelope(`<${op.name} xmlns="${TYPES}">${fields}</${op.name}>`));
			expect([op.name, reply.status, reply.headers.get("X-Status")]).toEqual([op.name, 400, "400"]);
			expect(reply.text).toContain("InvalidBody");
		}
		expect(await snapshot()).toEqual(before);
	});

	test("a NUL in a text field taken from the path is a 400 field error too", async () => {
		const reply = await plaza.http<ErrorBody>("GET", "/auth/cred%00entials");
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors).toEqual([expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: "provider" })]);
	});

	test("a NUL or a lone surrogate sent by an anonymous caller to a public operation is a 400, and registers no one", async () => {
		const before = await snapshot();
		for (const [field, bad] of [
			["FirstName", "A\0"],
			["UserName", "name\ud800"],
			["Password", "password\0password"],
			["DisplayName", "\udfff"],
		]) {
			const reply = await plaza.http<ErrorBody>("POST", "/register", { UserName: `anon${Date.now()}`, Password: "correct horse battery", FirstName: "A", LastName: "B", [field]: bad });
			expect([field, reply.status, reply.body.ResponseStatus.Errors]).toEqual([field, 400, [expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: field })]]);
		}
		const search = await user.http<ErrorBody>("GET", `/Search/Posts?TagNames=${encodeURIComponent("a,b")}%00`);
		expect(search.status).toBe(400);
		expect(search.body.ResponseStatus.Errors).toEqual([expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: "TagNames" })]);
		expect(await snapshot()).toEqual(before);
	});

	test("text that is well formed is still taken whole: a pair of surrogates (an emoji), U+FFFD, other control characters", async () => {
		const reply = await plaza.admin("POST", "/Users", { FirstName: "Ann 😀", LastName: "\ufffd\u0001", Interests: ["🎸", "tab\there"] });
		expect(reply.status).toBe(200);
		const found = await plaza.admin("GET", `/Users/${reply.body.Id}`);
		expect(found.body).toMatchObject({ FirstName: "Ann 😀", LastName: "\ufffd\u0001", Interests: ["🎸", "tab\there"] });
	});

	test("bytes that are not UTF-8 in a JSON or multipart body are read as U+FFFD (stored as such); a SOAP envelope that is not UTF-8 is a 400", async () => {
		const json = Buffer.concat([Buffer.from('{"FirstName":"A'), Buffer.from([0xff, 0xc0, 0xae]), Buffer.from('","LastName":"B"}')]);
		const viaJson = await fetch(`${plaza.url}/Users`, { method: "POST", body: json, headers: { "Content-Type": "application/json", Authorization: `Bearer ${ADMIN_KEY}` } });
		expect(viaJson.status).toBe(200);
		expect(((await viaJson.json()) as { FirstName: string }).FirstName).toMatch(/^A\ufffd+$/);

		const multipart = Buffer.concat([
			Buffer.from('--b\r\nContent-Disposition: form-data; name="FirstName"\r\n\r\nA'),
			Buffer.from([0xff, 0xc0, 0xae]),
			Buffer.from('\r\n--b\r\nContent-Disposition: form-data; name="LastName"\r\n\r\nB\r\n--b--\r\n'),
		]);
		const viaMultipart = await fetch(`${plaza.url}/Users`, { method: "POST", body: multipart, headers: { "Content-Type": "multipart/form-data; boundary=b", Authorization: `Bearer ${ADMIN_KEY}` } });
		expect(viaMultipart.status).toBe(200);
		expect(((await viaMultipart.json()) as { FirstName: string }).FirstName).toMatch(/^A\ufffd+$/);

		// In a form (or a query string) an escape that decodes to no UTF-8 text is kept as written: well-formed text too.
		const form = await plaza.http("POST", "/Users", "FirstName=A%FF%C0%AE&LastName=B", { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/x-www-form-urlencoded" });
		expect(form.status).toBe(200);
		expect(form.body.FirstName).toBe("A%FF%C0%AE");

		const before = await snapshot();
		const xml = Buffer.concat([Buffer.from(envelope(`<CreateUser xmlns="${TYPES}"><FirstName>A`)), Buffer.from([0xff]), Buffer.from(`</FirstName><LastName>B</LastName></CreateUser>`)]);
		const soap = await fetch(`${plaza.url}/soap11`, { method: "POST", body: xml, headers: { "Content-Type": "text/xml; charset=utf-8", Authorization: `Bearer ${ADMIN_KEY}` } });
		expect(soap.status).toBe(400);
		expect(await soap.text()).toContain("not UTF-8");
		expect(await snapshot()).toEqual(before);
	});

	test("a form with more fields than the parser takes is a 413, not a 500", async () => {
		const body = Array.from({ length: 1500 }, (_, i) => `f${i}=x`).join("&");
		const reply = await plaza.http<ErrorBody>("POST", "/json/reply/CreateUser", body, { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/x-www-form-urlencoded" });
		expect(reply.status).toBe(413);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("PayloadTooLarge");
	});

	test("a JSON body nested 200,000 deep is refused as a 400, and the gateway still answers", async () => {
		const deep = `{"FirstName":${"[".repeat(200_000)}${"]".repeat(200_000)},"LastName":"B"}`;
		const reply = await plaza.admin<ErrorBody>("POST", "/Users", deep);
		expect(reply.status).toBeGreaterThanOrEqual(400);
		expect(reply.status).toBeLessThan(500);
		expect((await plaza.http("GET", "/health")).status).toBe(200);
	});

	test(
		`property (seed ${fuzzSeed}, ${fuzzRuns} runs): any hostile value in any field of any operation, on any surface, by any caller, is never a 5xx, and a refused request changes nothing`,
		async () => {
			// "Operation.Field" names, so that a counterexample reads short.
			const fields = new Map<string, { op: Operation; declared: Field }>(catalogue.flatMap(op => fieldsOf(op).map(f => [`${op.name}.${f.name}`, { op, declared: f }] as const)));
			const names = [...fields.keys()];
			// Text fields more often: a NUL or a lone surrogate in one is what reached PostgreSQL and answered 500.
			const target = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...names.filter(k => isText(fields.get(k)!.declared))) }, { weight: 1, arbitrary: fc.constantFrom(...names) });
			const surfaces: Surface[] = ["json", "query", "form", "multipart", "soap"];
			let refusedByValidation = 0;
			await fc.assert(
				fc.asyncProperty(target, hostile, fc.constantFrom(...surfaces), fc.constantFrom<CallerKind>("admin", "admin", "user", "anonymous"), async (name, h, surface, caller) => {
					const { op, declared } = fields.get(name)!;
					const field = declared.name;
					const raw: Array<[string, string]> = h.kind === "rawEscape" ? [[field, h.escape]] : [];
					const before = await snapshot();
					const answer = await send(surface, caller, op, paramsWith(validBase(op, user.userId), field, h), raw);
					if (answer.status === 400) refusedByValidation += 1;
					expect({ op: op.name, field, surface, caller, status: answer.status < 500 ? "not 5xx" : answer.status, text: answer.status < 500 ? "" : answer.text }).toEqual({ op: op.name, field, surface, caller, status: "not 5xx", text: "" });
					if (answer.status >= 400) expect(await snapshot()).toEqual(before);
					// An admin passes every access check: text no store can keep must then be refused by validation, naming its field.
					if (caller === "admin" && isText(declared) && h.kind === "value" && carriesUnstorable(h.value, surface)) {
						const refusal =
							surface === "soap" ? { status: 400 } : { status: 400, errors: expect.arrayContaining([expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: expect.stringMatching(new RegExp(`^${field}(\\[\\d+\\])?$`)) })]) };
						expect({ op: op.name, field, surface, ...answer, text: undefined }).toMatchObject({ op: op.name, field, surface, ...refusal });
					}
				}),
				{ seed: fuzzSeed, numRuns: fuzzRuns, endOnFailure: true },
			);
			// The runs got past the gateway's door (credentials, routes) to the operations' validation.
			expect(refusedByValidation).toBeGreaterThan(fuzzRuns / 4);
			expect(Object.prototype).not.toHaveProperty("isAdmin");
			expect((await plaza.http("GET", "/health")).status).toBe(200);
			expect((await user.http("GET", `/Users/${user.userId}`)).status).toBe(200);
		},
		Math.max(60_000, fuzzRuns * 1_000),
	);
});

/**
 * Cases in files helper 1 owns (gateway/routes.ts, cookies.ts, identify.ts): malformed %-escapes in a
 * path, a malformed cookie, and a Basic user name with a NUL. They pass once helper 1's fixes land.
 */
describe("HELPER 1's files: malformed escapes in paths and cookies, a NUL in Basic credentials", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterAll(() => plaza?.stop());

	test.each(["/auth/%ff", "/auth/%", "/auth/%c0%ae", "/Users/%E0%A4%A", "/Users/%zz"])("GET %s is a 400, not a 500", async path => {
		const reply = await plaza.admin<ErrorBody>("GET", path);
		expect(reply.status).toBe(400);
	});

	test("a malformed cookie is ignored: /health and a read still answer", async () => {
		expect((await plaza.http("GET", "/health", undefined, { Cookie: "_ga=%ZZ; ss-id=%ff" })).status).toBe(200);
		expect((await plaza.http("GET", "/auth", undefined, { Cookie: "ss-id=%ff" })).status).toBe(401);
	});

	test("Basic credentials whose user name holds a NUL are simply wrong (401), on every engine", async () => {
		const reply = await plaza.http<ErrorBody>("GET", "/auth", undefined, { Authorization: `Basic ${Buffer.from("ad\0min:password").toString("base64")}` });
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
