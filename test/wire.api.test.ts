import { ADMIN_KEY, ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { createUser } from "./support/users";

describe("the wire format through the gateway", () => {
	let plaza: TestPlaza;
	let reader: Session;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"] });
		reader = await plaza.signUp();
	});
	afterAll(() => plaza.stop());

	test("timestamps are written as \\/Date(ms+0000)\\/ and GUIDs as 32 lower-case hex digits, byte for byte", async () => {
		const reply = await plaza.admin("POST", "/Users", {
			FirstName: "Wire",
			LastName: "Bytes",
			CreatedTime: "2024-11-22T10:00:00Z",
		});
		expect(reply.status).toBe(200);
		expect(reply.text).toContain('"CreatedTime":"\\/Date(1732269600000+0000)\\/"');
		expect(reply.text).toContain('"UpdatedTime":"\\/Date(1732269600000+0000)\\/"');
		expect(reply.text).toMatch(/^\{"Id":"[0-9a-f]{32}",/);
		expect(reply.body.CreatedTime).toBe("/Date(1732269600000+0000)/");
	});

	test.each([
		["ISO 8601 with Z", "2024-11-22T10:00:00Z"],
		["ISO 8601 with an offset", "2024-11-22T11:00:00+01:00"],
		["ISO 8601 without a zone (UTC)", "2024-11-22T10:00:00.000"],
		["/Date(ms)/", "/Date(1732269600000)/"],
		["/Date(ms+offset)/ (the milliseconds are UTC)", "/Date(1732269600000+0100)/"],
	])("a timestamp in %s is accepted", async (_form, value) => {
		const reply = await plaza.admin("POST", "/Users", { FirstName: "Date", LastName: "Form", CreatedTime: value });
		expect(reply.status).toBe(200);
		expect(reply.body.CreatedTime).toBe("/Date(1732269600000+0000)/");
	});

	test("the escaped JSON form \\/Date(ms)\\/ in a request body is accepted", async () => {
		const body = '{"FirstName":"Escaped","LastName":"Date","CreatedTime":"\\/Date(1732269600000)\\/"}';
		const reply = await plaza.http("POST", "/Users", body, {
			"Content-Type": "application/json",
			Authorization: `Bearer ${ADMIN_KEY}`,
		});
		expect(reply.status).toBe(200);
		expect(reply.body.CreatedTime).toBe("/Date(1732269600000+0000)/");
	});

	test("a malformed date is a 400 field error and writes nothing", async () => {
		const before = await plaza.count("users", "users");
		const reply = await plaza.admin<ErrorBody>("POST", "/Users", {
			FirstName: "Bad",
			LastName: "Date",
			CreatedTime: "yesterday",
		});
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "InvalidValue", FieldName: "CreatedTime" }),
		]);
		expect(await plaza.count("users", "users")).toBe(before);
	});

	test("GUIDs are accepted in the N, D and B forms, in any case", async () => {
		const { Id } = await createUser(plaza);
		const dashed = `${Id.slice(0, 8)}-${Id.slice(8, 12)}-${Id.slice(12, 16)}-${Id.slice(16, 20)}-${Id.slice(20)}`;
		for (const form of [Id, Id.toUpperCase(), dashed, `{${dashed.toUpperCase()}}`]) {
			const reply = await reader.http("GET", `/Users/${encodeURIComponent(form)}`);
			expect(reply.status).toBe(200);
			expect(reply.body.Id).toBe(Id);
		}
	});

	test("null fields are left out and empty lists are written as []", async () => {
		const reply = await plaza.admin("POST", "/Users", { FirstName: "Sparse", LastName: "Record", MiddleName: null });
		expect(reply.status).toBe(200);
		expect(reply.body).not.toHaveProperty("MiddleName");
		expect(reply.text).not.toContain("null");
		expect(reply.body).toMatchObject({
			Experiences: [],
			Certifications: [],
			Interests: [],
			Connections: [],
			Networks: [],
			Subscriptions: [],
		});
	});

	test("a .json suffix and ?format=json give JSON on any route", async () => {
		const { Id } = await createUser(plaza);
		for (const path of [`/Users/${Id}.json`, `/Users/${Id}?format=json`, `/json/reply/FindUser.json?Id=${Id}`]) {
			const reply = await reader.http("GET", path);
			expect(reply.status).toBe(200);
			expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
			expect(reply.body.Id).toBe(Id);
		}
		const unsupported = await reader.http<ErrorBody>("GET", `/Users/${Id}?format=csv`);
		expect(unsupported.status).toBe(400);
		expect(unsupported.body.ResponseStatus.Errors[0]).toMatchObject({ FieldName: "format" });
	});

	test("?callback= wraps the body as JSONP with text/javascript, errors included", async () => {
		const { Id } = await createUser(plaza);
		const reply = await reader.http("GET", `/Users/${Id}?callback=jQuery.cb_1$`);
		expect(reply.status).toBe(200);
		expect(reply.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
		expect(reply.text).toMatch(/^jQuery\.cb_1\$\(\{"Id":"[0-9a-f]{32}".*\}\)$/);
		const missing = await reader.http("GET", "/Users/0f8fad5bd9cb469fa16570867728950e?callback=cb");
		expect(missing.status).toBe(404);
		expect(missing.text).toMatch(/^cb\(\{"ResponseStatus":\{"ErrorCode":"NotFound",/);
	});

	test("a JSONP callback name outside [A-Za-z0-9_.$] is a 400 and nothing runs", async () => {
		const before = await plaza.count("users", "users");
		const reply = await plaza.http<ErrorBody>(
			"POST",
			"/Users?callback=alert(1)//",
			{ FirstName: "X", LastName: "Y" },
			{ Authorization: `Bearer ${ADMIN_KEY}` },
		);
		expect(reply.status).toBe(400);
		expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
		expect(reply.body.ResponseStatus.Errors[0]).toMatchObject({ ErrorCode: "InvalidValue", FieldName: "callback" });
		expect(await plaza.count("users", "users")).toBe(before);
	});

	test("routes and operation names match whatever their case", async () => {
		const { Id } = await createUser(plaza);
		expect((await reader.http("GET", `/users/${Id}`)).status).toBe(200);
		expect((await reader.http("POST", "/JSON/REPLY/FINDUSER", { id: Id })).status).toBe(200);
		expect((await reader.http<WireRecord[]>("GET", "/json/reply/allusers")).status).toBe(200);
	});
});
