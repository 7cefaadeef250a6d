import { ADMIN_KEY, ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { createUser } from "./support/users";

/** A user's row as the users database stores it (every column). */
const storedUser = (plaza: TestPlaza, id: string) => plaza.stored("users").find("users", { id });

describe("users operations through the gateway", () => {
	let plaza: TestPlaza;
	let reader: Session;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"] });
		reader = await plaza.signUp();
	});
	afterAll(() => plaza.stop());

	test("CreateUser writes every profile field and returns the User record in SPEC order", async () => {
		const reply = await plaza.admin("POST", "/Users", {
			FirstName: "Ada",
			MiddleName: "King",
			LastName: "Lovelace",
			Suffix: "Ms.",
			Email: "ada@example.org",
			AboutMe: "Analyst",
			JobTitle: "Mathematician",
			CompanyName: "Analytical Engines",
			CompanyAddress: "1 Engine Way",
			CompanyCity: "London",
			CompanyStateProvince: "Greater London",
			CompanyPostalCode: "N1",
			CompanyCountry: "UK",
			TimeZone: "GMT",
			Experiences: ["Notes on the engine"],
			Certifications: ["Royal Society"],
			Interests: ["poetry", "mathematics"],
		});
		expect(reply.status).toBe(200);
		expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
		const user = reply.body;
		expect(Object.keys(user)).toEqual([
			"Id",
			"FirstName",
			"MiddleName",
			"LastName",
			"Suffix",
			"Email",
			"AboutMe",
			"JobTitle",
			"CompanyName",
			"CompanyAddress",
			"CompanyCity",
			"CompanyStateProvince",
			"CompanyPostalCode",
			"CompanyCountry",
			"TimeZone",
			"Experiences",
			"Certifications",
			"Interests",
			"Connections",
			"Networks",
			"Subscriptions",
			"CreatedTime",
			"UpdatedTime",
			"Cloaked",
		]);
		expect(user).toMatchObject({
			FirstName: "Ada",
			Interests: ["poetry", "mathematics"],
			Connections: [],
			Networks: [],
			Subscriptions: [],
			Cloaked: false,
		});
		expect(user.Id).toMatch(/^[0-9a-f]{32}$/);
		expect(await storedUser(plaza, user.Id)).toMatchObject({ first_name: "Ada", email: "ada@example.org" });
	});

	test("FindUser answers the same body on GET /Users/{Id} and on the generic route", async () => {
		const created = await createUser(plaza, { FirstName: "Grace", LastName: "Hopper" });
		const rest = await reader.http("GET", `/Users/${created.Id}`);
		const generic = await reader.http("POST", "/json/reply/FindUser", { Id: created.Id });
		const genericGet = await reader.http("GET", `/json/reply/FindUser?Id=${created.Id}`);
		const alias = await reader.http("POST", "/api/finduser", { id: created.Id });
		for (const reply of [rest, generic, genericGet, alias]) expect(reply.status).toBe(200);
		expect(rest.text).toBe(
			JSON.stringify(created)
				.replace(/\/Date/g, "\\/Date")
				.replace(/\)\//g, ")\\/"),
		);
		expect(generic.text).toBe(rest.text);
		expect(genericGet.text).toBe(rest.text);
		expect(alias.text).toBe(rest.text);
	});

	test("CreateUser by REST and by the generic route (JSON and form bodies) make the same records", async () => {
		const fields = { FirstName: "Linus", LastName: "Torvalds", Interests: ["kernels"] };
		const rest = await plaza.admin("POST", "/Users", fields);
		const generic = await plaza.admin("POST", "/json/reply/CreateUser", fields);
		const form = await plaza.http(
			"POST",
			"/json/reply/CreateUser",
			"FirstName=Linus&LastName=Torvalds&Interests=kernels",
			{
				"Content-Type": "application/x-www-form-urlencoded",
				Authorization: `Bearer ${ADMIN_KEY}`,
			},
		);
		for (const reply of [rest, generic, form]) expect(reply.status).toBe(200);
		const strip = (u: WireRecord) => ({ ...u, Id: undefined, CreatedTime: undefined, UpdatedTime: undefined });
		expect(strip(generic.body)).toEqual(strip(rest.body));
		expect(strip(form.body)).toEqual(strip(rest.body));
		expect(new Set([rest.body.Id, generic.body.Id, form.body.Id]).size).toBe(3);
	});

	test("input binding ignores the case of field names and drops unknown fields", async () => {
		const reply = await plaza.admin("POST", "/json/reply/createuser", {
			firstname: "Case",
			LASTNAME: "Folded",
			jobTitle: "Tester",
			Password2: "x",
		});
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ FirstName: "Case", LastName: "Folded", JobTitle: "Tester" });
		expect(Object.keys((await storedUser(plaza, reply.body.Id))!)).not.toContain("password2");
	});

	test("AllUsers answers the same page on GET /Users and on the generic route", async () => {
		const rest = await reader.http<WireRecord[]>("GET", "/Users?Offset=1&Limit=2");
		const generic = await reader.http<WireRecord[]>("POST", "/json/reply/AllUsers", { Offset: 1, Limit: 2 });
		expect(rest.status).toBe(200);
		expect(rest.body).toHaveLength(2);
		expect(generic.text).toBe(rest.text);
	});

	test("UpdateUserInternal sets the given fields, clears those sent empty, keeps the rest, and moves UpdatedTime", async () => {
		const created = await createUser(plaza, { JobTitle: "Engineer", CompanyName: "Acme", Email: "update@example.org" });
		await new Promise(resolve => setTimeout(resolve, 5));
		const body = { FirstName: "Renamed", LastName: "Person", CompanyName: "", Cloaked: true, Interests: ["chess"] };
		const rest = await plaza.admin("PUT", `/Internal/Users/${created.Id}`, body);
		expect(rest.status).toBe(200);
		expect(rest.body).toMatchObject({
			Id: created.Id,
			FirstName: "Renamed",
			JobTitle: "Engineer",
			Email: "update@example.org",
			Cloaked: true,
			Interests: ["chess"],
		});
		expect(rest.body).not.toHaveProperty("CompanyName");
		expect(rest.body.CreatedTime).toBe(created.CreatedTime);
		expect(rest.body.UpdatedTime).not.toBe(created.UpdatedTime);

		const generic = await plaza.admin("POST", "/json/reply/UpdateUserInternal", {
			...body,
			Id: created.Id,
			FirstName: "Again",
		});
		expect(generic.status).toBe(200);
		expect(generic.body).toMatchObject({ Id: created.Id, FirstName: "Again", Cloaked: true });
		const stored = await storedUser(plaza, created.Id);
		expect(stored).toMatchObject({ first_name: "Again" });
		expect(Number(stored?.cloaked)).toBe(1); // 1 in SQL, true on MongoDB
	});

	test("UpdateUserInternal requires FirstName and LastName (SPEC.md §4.2) and writes nothing without them", async () => {
		const created = await createUser(plaza, { FirstName: "Keep" });
		const reply = await plaza.admin<ErrorBody>("PUT", `/Internal/Users/${created.Id}`, { LastName: "Only" });
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors).toEqual([
			{ ErrorCode: "NotEmpty", FieldName: "FirstName", Message: "FirstName is required" },
		]);
		expect(await storedUser(plaza, created.Id)).toMatchObject({ first_name: "Keep", last_name: created.LastName });
	});

	test("UpdateUserInternal of an unknown user is 404 NotFound and creates nothing", async () => {
		const before = await plaza.count("users", "users");
		const reply = await plaza.admin<ErrorBody>("PUT", "/Internal/Users/0f8fad5bd9cb469fa16570867728950e", {
			FirstName: "A",
			LastName: "B",
		});
		expect(reply.status).toBe(404);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("NotFound");
		expect(await plaza.count("users", "users")).toBe(before);
	});

	test("an e-mail address belongs to one user only, whatever its case: 409 AlreadyExists naming Email", async () => {
		await createUser(plaza, { Email: "unique@example.org" });
		const before = await plaza.count("users", "users");
		const reply = await plaza.admin<ErrorBody>("POST", "/Users", {
			FirstName: "Dup",
			LastName: "Licate",
			Email: "UNIQUE@example.org",
		});
		expect(reply.status).toBe(409);
		expect(reply.body.ResponseStatus).toMatchObject({
			ErrorCode: "AlreadyExists",
			Errors: [{ ErrorCode: "AlreadyExists", FieldName: "Email" }],
		});
		expect(await plaza.count("users", "users")).toBe(before);
	});

	test("cloaked users are left out of AllUsers for ordinary callers, but not for admins or themselves", async () => {
		const cloaked = await createUser(plaza, { Cloaked: true });
		const visible = await createUser(plaza);
		const hiding = await plaza.signUp();
		expect(
			(
				await plaza.admin("PUT", `/Internal/Users/${hiding.userId}`, {
					FirstName: "Hid",
					LastName: "Den",
					Cloaked: true,
				})
			).status,
		).toBe(200);
		const ids = (reply: { body: WireRecord[] }) => reply.body.map(u => u.Id);
		const ordinary = await reader.http<WireRecord[]>("GET", "/Users?Limit=1000");
		const admin = await plaza.admin<WireRecord[]>("GET", "/Users?Limit=1000");
		const themselves = await hiding.http<WireRecord[]>("GET", "/Users?Limit=1000");
		expect(ids(ordinary)).toContain(visible.Id);
		expect(ids(ordinary)).not.toContain(cloaked.Id);
		expect(ids(ordinary)).not.toContain(hiding.userId);
		expect(ids(admin)).toEqual(expect.arrayContaining([cloaked.Id, visible.Id, hiding.userId]));
		expect(ids(themselves)).toContain(hiding.userId);
		expect(ids(themselves)).not.toContain(cloaked.Id);
	});

	test("Internal operations are for administrators: 401 without credentials or with a wrong key, 403 for a user; nothing written", async () => {
		const created = await createUser(plaza, { FirstName: "Guarded" });
		const before = await plaza.count("users", "users");
		const anonymous = await plaza.http<ErrorBody>("PUT", `/Internal/Users/${created.Id}`, {
			FirstName: "Hacked",
			LastName: "X",
		});
		const wrongKey = await plaza.http<ErrorBody>(
			"POST",
			"/Users",
			{ FirstName: "Hacked", LastName: "X" },
			{ Authorization: "Bearer not-the-key" },
		);
		expect(anonymous.status).toBe(401);
		expect(anonymous.body.ResponseStatus.ErrorCode).toBe("Unauthorized");
		expect(wrongKey.status).toBe(401);
		const user = await reader.http<ErrorBody>("PUT", `/Internal/Users/${created.Id}`, {
			FirstName: "Hacked",
			LastName: "X",
		});
		const userCreate = await reader.http<ErrorBody>("POST", "/Users", { FirstName: "Hacked", LastName: "X" });
		expect(user.status).toBe(403);
		expect(user.body.ResponseStatus.ErrorCode).toBe("Forbidden");
		expect(userCreate.status).toBe(403);
		expect(await plaza.count("users", "users")).toBe(before);
		expect(await storedUser(plaza, created.Id)).toMatchObject({ first_name: "Guarded" });
	});

	test("the operation listing shows every operation with its routes", async () => {
		const reply = await plaza.http<{ Operations: Array<{ Name: string; Routes: string[] }> }>("GET", "/operations");
		expect(reply.status).toBe(200);
		expect(reply.body.Operations.map(o => o.Name)).toEqual(
			expect.arrayContaining(["CreateUser", "FindUser", "AllUsers", "UpdateUserInternal"]),
		);
		expect(reply.body.Operations.find(o => o.Name === "UpdateUserInternal")?.Routes).toEqual([
			"PUT /Internal/Users/{Id}",
			"POST /json/reply/UpdateUserInternal",
		]);
	});

	test("GET /health answers 200 once the process serves, GET /ready once it may take work", async () => {
		const reply = await plaza.http("GET", "/health");
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({ Status: "Up" });
		const ready = await plaza.http("GET", "/ready");
		expect(ready.status).toBe(200);
		expect(ready.body).toEqual({ Status: "Ready" });
	});

	test("GET /metrics is Prometheus text for the administrator only", async () => {
		await reader.http("GET", `/Users/${reader.userId}`);
		const metrics = await plaza.admin("GET", "/metrics");
		expect(metrics.status).toBe(200);
		expect(metrics.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
		expect(metrics.text).toMatch(/plaza_operation_requests_total\{[^}]*operation="FindUser"[^}]*status="200"/);
		expect(metrics.text).toMatch(/moleculer_request_total\{[^}]*action="users\.find"/);
		expect((await reader.http("GET", "/metrics")).status).toBe(403);
		expect((await plaza.http("GET", "/metrics")).status).toBe(401);
	});
});
