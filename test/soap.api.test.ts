import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { asAdmin, call, comparable, envelope, postSoap, soapClient, SoapClient, TYPES } from "./support/soap";

type Result = Record<string, unknown>;

describe("SOAP 1.1: the node soap client, built from Plaza's own WSDL, against the JSON route", () => {
	let plaza: TestPlaza;
	let admin: SoapClient;
	let ann: Session;
	let bob: Session;
	const as = (session: Session) => soapClient(plaza, { "X-ss-id": session.token });

	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		admin = await soapClient(plaza, asAdmin);
		[ann, bob] = await Promise.all([
			plaza.signUp({ FirstName: "Ann", LastName: "Soap" }),
			plaza.signUp({ FirstName: "Bob", LastName: "Soap" }),
		]);
	});
	afterAll(() => plaza.stop());

	test("CreateUser, FindUser and AllUsers give the data the JSON route gives", async () => {
		const created = await call<{ User: Result }>(admin, "CreateUser", {
			FirstName: "Ada",
			LastName: "Lovelace",
			Email: "ada@example.org",
			Interests: { string: ["mathematics", "engines"] },
			CreatedTime: "2024-11-22T10:00:00Z",
		});
		expect(created.status).toBeUndefined();
		const user = created.result.User;
		expect(user).toMatchObject({
			FirstName: "Ada",
			LastName: "Lovelace",
			Interests: { string: ["mathematics", "engines"] },
			CreatedTime: new Date("2024-11-22T10:00:00Z"),
		});
		expect(user.Id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

		const id = String(user.Id).replace(/-/g, "");
		const json = await plaza.admin("GET", `/Users/${id}`);
		expect(json.status).toBe(200);
		expect(comparable(user)).toEqual(comparable(json.body));

		const found = await call<{ User: Result }>(admin, "FindUser", { Id: user.Id });
		expect(comparable(found.result.User)).toEqual(comparable(json.body));

		const all = await call<{ Users: { User: Result[] } }>(admin, "AllUsers", { Offset: 0, Limit: 1000 });
		const allJson = await plaza.admin<WireRecord[]>("GET", "/Users?Limit=1000");
		expect(all.result.Users.User.length).toBe(allJson.body.length);
		expect(comparable(all.result.Users)).toEqual(comparable(allJson.body));
	});

	test("UpdateUser as oneself, with the session in X-ss-id, as on JSON", async () => {
		const client = await as(ann);
		const updated = await call<{ User: Result }>(client, "UpdateUser", {
			Id: ann.userId,
			FirstName: "Ann",
			LastName: "Soap",
			JobTitle: "Tester",
			Interests: { string: ["xml"] },
		});
		expect(updated.status).toBeUndefined();
		const json = await ann.http("GET", `/Users/${ann.userId}`);
		expect(json.body).toMatchObject({ JobTitle: "Tester", Interests: ["xml"] });
		expect(comparable(updated.result.User)).toEqual(comparable(json.body));
	});

	test("Registration (AutoLogin) and Auth over SOAP sign in: a SessionId and the session cookies, which JSON then accepts", async () => {
		const client = await soapClient(plaza);
		const userName = `soapy${Date.now()}`;
		const registered = await call<Result>(client, "Registration", {
			UserName: userName,
			Password: "correct horse battery",
			FirstName: "So",
			LastName: "Apy",
			AutoLogin: true,
		});
		expect(registered.status).toBeUndefined();
		expect(registered.result).toMatchObject({
			UserName: userName,
			SessionId: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
		});
		expect(String(registered.headers["set-cookie"])).toMatch(
			/ss-id=[A-Za-z0-9_-]{32}; Path=\/; HttpOnly; SameSite=Lax/,
		);
		const mine = await plaza.http("GET", `/Users/${String(registered.result.UserId)}`, undefined, {
			"X-ss-id": String(registered.result.SessionId),
		});
		expect(mine.status).toBe(200);

		const signedIn = await call<Result>(client, "Auth", {
			provider: "credentials",
			UserName: userName,
			Password: "correct horse battery",
			RememberMe: true,
		});
		expect(signedIn.result).toMatchObject({
			UserId: registered.result.UserId,
			UserName: userName,
			SessionId: expect.any(String),
		});
		expect(String(signedIn.headers["set-cookie"])).toMatch(/ss-pid=.*ss-opt=perm/s);
		const cookie = `ss-id=${String(signedIn.result.SessionId)}`;
		expect((await plaza.http("GET", "/auth", undefined, { Cookie: cookie })).body).toMatchObject({
			UserId: registered.result.UserId,
		});

		// The same identification as JSON: the session cookie, and HTTP Basic.
		const byCookie = await call<{ User: Result }>(await soapClient(plaza, { Cookie: cookie }), "FindUser", {
			Id: registered.result.UserId,
		});
		expect(comparable(byCookie.result.User)).toMatchObject({ Id: registered.result.UserId, FirstName: "So" });
		const basic = `Basic ${Buffer.from(`${userName}:correct horse battery`).toString("base64")}`;
		const byBasic = await call<{ User: Result }>(await soapClient(plaza, { Authorization: basic }), "FindUser", {
			Id: registered.result.UserId,
		});
		expect(byBasic.status).toBeUndefined();

		const wrong = await call<Result>(client, "Auth", {
			provider: "credentials",
			UserName: userName,
			Password: "wrong password",
		});
		expect(wrong.status).toBe("401");
		expect(wrong.result).toMatchObject({ ResponseStatus: { ErrorCode: "Unauthorized" } });
	});

	test("CreateConnection returns both sides, as the JSON route does", async () => {
		const carl = await plaza.signUp({ FirstName: "Carl", LastName: "Connect" });
		const created = await call<{ Connections: { Connection: Result[] } }>(await as(ann), "CreateConnection", {
			OwnerId: ann.userId,
			ConnectToId: bob.userId,
			IsFavorite: true,
		});
		expect(created.status).toBeUndefined();
		const sides = created.result.Connections.Connection;
		expect(sides).toHaveLength(2);
		expect(comparable(sides[0])).toMatchObject({
			OwnerId: ann.userId,
			UserId: bob.userId,
			IsFavorite: true,
			FirstName: "Bob",
		});

		const json = await bob.http<WireRecord[]>("POST", "/Connections", {
			OwnerId: bob.userId,
			ConnectToId: carl.userId,
		});
		expect(json.status).toBe(200);
		const mirror = await call<{ Connections: { Connection: Result[] } }>(await as(carl), "CreateConnection", {
			OwnerId: carl.userId,
			ConnectToId: ann.userId,
		});
		expect(Object.keys(comparable(mirror.result.Connections.Connection[0]) as object).sort()).toEqual(
			Object.keys(json.body[0]).sort(),
		);
		const listed = await ann.http<WireRecord[]>("GET", `/Users/${ann.userId}/Connections`);
		expect(comparable(listed.body)).toEqual(expect.arrayContaining([comparable(sides[0])]));
	});

	test("CreateComment and FindComment give the data the JSON route gives", async () => {
		const post = (await ann.http("POST", "/Posts", { AuthorId: ann.userId, Content: "Talk to me in XML" })).body;
		const created = await call<{ Comment: Result }>(await as(bob), "CreateComment", {
			PostId: post.Id,
			AuthorId: bob.userId,
			Content: "<xml> & friends",
			CreatedTime: "2024-01-02T03:04:05Z",
		});
		expect(created.status).toBeUndefined();
		const comment = created.result.Comment;
		expect(comment).toMatchObject({ Content: "<xml> & friends", ContentCreatedTime: new Date("2024-01-02T03:04:05Z") });

		const json = await bob.http("GET", `/Comments/${String(comment.Id).replace(/-/g, "")}`);
		expect(json.status).toBe(200);
		expect(comparable(comment)).toEqual(comparable(json.body));
		const found = await call<{ Comment: Result }>(await as(ann), "FindComment", { Id: comment.Id });
		expect(comparable(found.result.Comment)).toEqual(comparable(json.body));
	});

	test("a validation error: the <Op>Response with its ResponseStatus, HTTP 200 and X-Status 400; nothing is written", async () => {
		const before = await plaza.count("users", "users");
		const reply = await call<{ ResponseStatus: Result; User?: Result }>(admin, "CreateUser", {
			FirstName: "NoLastName",
			Email: "not an e-mail",
		});
		expect(reply.status).toBe("400");
		expect(reply.result.User).toBeFalsy();
		expect(reply.result.ResponseStatus).toMatchObject({
			ErrorCode: "NotEmpty",
			Errors: {
				ResponseError: expect.arrayContaining([
					expect.objectContaining({ FieldName: "LastName", ErrorCode: "NotEmpty" }),
					expect.objectContaining({ FieldName: "Email", ErrorCode: "Email" }),
				]),
			},
		});
		expect(reply.result.ResponseStatus.StackTrace).toBeFalsy();
		expect(await plaza.count("users", "users")).toBe(before);

		const raw = await postSoap(plaza, envelope(`<FindUser xmlns="${TYPES}"><Id>not-a-guid</Id></FindUser>`), asAdmin);
		expect(raw.status).toBe(200);
		expect(raw.headers.get("x-status")).toBe("400");
		expect(raw.text).toContain(`<FindUserResponse xmlns="${TYPES}"`);
		expect(raw.text).toMatch(/<ResponseStatus><ErrorCode>InvalidGuid<\/ErrorCode>.*<FieldName>Id<\/FieldName>/);
	});

	test("permission errors: 401 for no caller, 403 for an admin operation and for acting as someone else", async () => {
		const anonymous = await call<{ ResponseStatus: Result }>(await soapClient(plaza), "AllUsers", {});
		expect(anonymous.status).toBe("401");
		expect(anonymous.result.ResponseStatus).toMatchObject({ ErrorCode: "Unauthorized" });

		const notAdmin = await call<{ ResponseStatus: Result }>(await as(ann), "CreateUser", {
			FirstName: "Eve",
			LastName: "Il",
		});
		expect(notAdmin.status).toBe("403");
		expect(notAdmin.result.ResponseStatus).toMatchObject({
			ErrorCode: "Forbidden",
			Message: "CreateUser is for administrators only",
		});

		const forged = await call<{ ResponseStatus: Result }>(await as(ann), "UpdateUser", {
			Id: bob.userId,
			FirstName: "Hacked",
			LastName: "Bob",
		});
		expect(forged.status).toBe("403");
		expect((await bob.http("GET", `/Users/${bob.userId}`)).body.FirstName).toBe("Bob");

		const badCredentials = await call<{ ResponseStatus: Result }>(
			await soapClient(plaza, { Authorization: "Bearer not-the-key" }),
			"FindUser",
			{ Id: bob.userId },
		);
		expect(badCredentials.status).toBe("401");
		expect(badCredentials.result.ResponseStatus).toMatchObject({ ErrorCode: "Unauthorized" });
	});

	test("the response is in schema order with every namespace bound: xs:dateTime, D-form GUIDs, lists of Arrays' items", async () => {
		const raw = await postSoap(
			plaza,
			envelope(
				`<t:CreateUser xmlns:t="${TYPES}"><t:LastName>Order</t:LastName><t:FirstName>In</t:FirstName><t:Experiences>x,y</t:Experiences><t:CreatedTime>/Date(1704067200000)/</t:CreatedTime></t:CreateUser>`,
			),
			{ ...asAdmin, SOAPAction: `"${TYPES}/CreateUser"` },
		);
		expect(raw.status).toBe(200);
		expect(raw.headers.get("content-type")).toBe("text/xml; charset=utf-8");
		expect(raw.text).toMatch(
			/^<\?xml version="1\.0" encoding="utf-8"\?><soap:Envelope xmlns:soap="http:\/\/schemas\.xmlsoap\.org\/soap\/envelope\/" xmlns:xsi="[^"]+">/,
		);
		expect(raw.text).toContain(
			`<CreateUserResponse xmlns="${TYPES}" xmlns:arr="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><User>`,
		);
		expect(raw.text).toContain("<CreatedTime>2024-01-01T00:00:00.000Z</CreatedTime>");
		expect(raw.text).toContain("<Experiences><arr:string>x</arr:string><arr:string>y</arr:string></Experiences>");
		expect(raw.text).toMatch(/<Id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}<\/Id>/);
		const order = [
			"Certifications",
			"Cloaked",
			"Connections",
			"CreatedTime",
			"Experiences",
			"FirstName",
			"Id",
			"Interests",
			"LastName",
			"Networks",
			"Subscriptions",
			"UpdatedTime",
		].map(n => raw.text.indexOf(`<${n}`));
		expect(order.every(i => i > 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
	});

	test("SOAPAction must name the operation the Body holds; an unknown operation is a Fault", async () => {
		const mismatch = await postSoap(plaza, envelope(`<AllUsers xmlns="${TYPES}" />`), {
			...asAdmin,
			SOAPAction: `"${TYPES}/CreateUser"`,
		});
		expect(mismatch.status).toBe(400);
		expect(mismatch.text).toMatch(
			/<soap:Fault><faultcode>soap:Client<\/faultcode><faultstring>The SOAPAction names CreateUser, but the Body holds AllUsers<\/faultstring>/,
		);

		const unknown = await postSoap(plaza, envelope(`<DropAllTables xmlns="${TYPES}" />`), asAdmin);
		expect(unknown.status).toBe(404);
		expect(unknown.headers.get("x-status")).toBe("404");
		expect(unknown.text).toContain("<faultcode>soap:Client</faultcode>");

		const foreign = await postSoap(plaza, envelope(`<AllUsers xmlns="urn:somebody-else" />`), asAdmin);
		expect(foreign.status).toBe(404);
	});

	test("JSON sent to /soap11 is refused with a Fault, not taken as a call", async () => {
		const reply = await plaza.admin<ErrorBody>("POST", "/soap11", { operation: "AllUsers" });
		expect(reply.status).toBe(400);
		expect(reply.text).toContain("<faultcode>soap:Client</faultcode>");
	});

	test("the description operations answer over SOAP too (Resources, ResourceRequest)", async () => {
		const client = await soapClient(plaza);
		const resources = await call<Result>(client, "Resources", {});
		expect(resources.result).toMatchObject({
			apiVersion: "1.0",
			swaggerVersion: "1.2",
			apis: { RestService: expect.arrayContaining([expect.objectContaining({ path: "/resource/Users" })]) },
		});
		const users = await call<Result>(client, "ResourceRequest", { name: "Users" });
		// Its response record is not named ResourceRequestResponse, so that element holds it as a member.
		expect(users.result).toMatchObject({
			ResourceResponse: {
				resourcePath: "/Users",
				models: { KeyValueOfstringSwaggerModel: expect.arrayContaining([expect.objectContaining({ Key: "User" })]) },
			},
		});
	});
});
