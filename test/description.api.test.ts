import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { catalogue } from "../shared/catalogue";
import { ADMIN_KEY, ErrorBody, plazaForSuite } from "./support/plaza";
import { soapClient } from "./support/soap";

/**
 * Runs a tool without blocking this process, whose event loop also serves Plaza: a synchronous run
 * froze the server past its keep-alive timeout, and the next request met a closed socket.
 */
function runTool(
	file: string,
	args: string[],
	options: { encoding: "utf8"; env?: NodeJS.ProcessEnv; timeout: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
	return new Promise(resolve => {
		execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
			const code = (err as { code?: unknown } | null)?.code;
			resolve({ status: err ? (typeof code === "number" ? code : null) : 0, stdout, stderr });
		});
	});
}

type Json = Record<string, unknown>;
interface RestService {
	path: string;
	description: string;
}
interface MethodOperation {
	httpMethod: string;
	nickname: string;
	summary: string;
	notes: string;
	responseClass: string;
	parameters: Array<{
		name: string;
		paramType: string;
		dataType: string;
		required: boolean;
		allowMultiple: boolean;
		allowableValues?: Json;
	}>;
	errorResponses: Array<{ code: number; reason: string }>;
}
interface ResourceResponse {
	apiVersion: string;
	basePath: string;
	resourcePath: string;
	apis: Array<{ path: string; description: string; operations: MethodOperation[] }>;
	models: Record<string, { id: string; properties: Record<string, Json> }>;
}
interface OpenApi {
	openapi: string;
	info: Json;
	paths: Record<
		string,
		Record<
			string,
			{
				operationId: string;
				summary: string;
				parameters: Json[];
				requestBody?: Json;
				responses: Record<string, Json>;
				security: Json[];
			}
		>
	>;
	components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

/** A command-line tool the project installs. */
const tool = (name: string) => path.join(__dirname, "..", "node_modules", ".bin", name);

/** The tools' telemetry and update checks off: tests send nothing anywhere. */
const quietTools = {
	...process.env,
	REDOCLY_TELEMETRY: "off",
	REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
	NO_UPDATE_NOTIFIER: "1",
};

describe("the API description: WSDL, Swagger 1.x resources and OpenAPI, made from the catalogue", () => {
	const { plaza } = plazaForSuite({ services: ["users"] });

	test("every operation of the catalogue is in the WSDL, in the resources and in OpenAPI", async () => {
		const wsdl = (await plaza.http("GET", "/soap11?wsdl")).text;
		const described = (await soapClient(plaza)) as unknown as {
			describe(): { SyncReply: { BasicHttpBinding_ISyncReply: Record<string, unknown> } };
		};
		const soapOperations = Object.keys(described.describe().SyncReply.BasicHttpBinding_ISyncReply);

		const listing = (await plaza.http<{ apis: RestService[] }>("GET", "/resources")).body;
		const nicknames = new Set<string>();
		for (const api of listing.apis) {
			const resource = await plaza.http<ResourceResponse>("GET", api.path);
			expect(resource.status).toBe(200);
			for (const path of resource.body.apis) for (const op of path.operations) nicknames.add(op.nickname);
		}

		const openApi = (await plaza.http<OpenApi>("GET", "/openapi.json")).body;
		const operationIds = new Set(
			Object.values(openApi.paths).flatMap(methods => Object.values(methods).map(op => op.operationId)),
		);

		expect(catalogue.length).toBeGreaterThan(0);
		for (const op of catalogue) {
			expect({ op: op.name, soap: soapOperations.includes(op.name) }).toEqual({ op: op.name, soap: true });
			for (const part of [
				`<wsdl:message name="${op.name}In">`,
				`<wsdl:part name="par" element="tns:${op.name}Response" />`,
				`soapAction="http://schemas.servicestack.net/types/${op.name}"`,
				`<xs:complexType name="${op.name}">`,
				`<xs:complexType name="${op.name}Response">`,
			]) {
				expect({ op: op.name, part, found: wsdl.includes(part) }).toEqual({ op: op.name, part, found: true });
			}
			expect({ op: op.name, resources: nicknames.has(op.name) }).toEqual({ op: op.name, resources: true });
			expect({ op: op.name, openApi: operationIds.has(op.name) }).toEqual({ op: op.name, openApi: true });
			for (const r of op.routes) {
				// Routes that differ only by their fields' names are one OpenAPI path (the first one's names).
				const path = r.path.replace(/:(\w+)\??/g, "{}").toLowerCase();
				const found = Object.entries(openApi.paths).some(
					([p, methods]) =>
						p.replace(/\{\w+\}/g, "{}").toLowerCase() === path &&
						new RegExp(`^${op.name}(_\\d+)?$`).test(methods[r.method.toLowerCase()]?.operationId ?? ""),
				);
				expect({ op: op.name, route: `${r.method} ${r.path}`, found }).toEqual({
					op: op.name,
					route: `${r.method} ${r.path}`,
					found: true,
				});
			}
		}
	});

	test("the WSDL has the reference's structure and is served at /soap11, /soap11?wsdl and /soap11/wsdl", async () => {
		const [plain, query, path] = await Promise.all(
			["/soap11", "/soap11?wsdl", "/soap11/wsdl"].map(p => plaza.http("GET", p)),
		);
		expect(plain.status).toBe(200);
		expect(plain.headers.get("content-type")).toBe("text/xml; charset=utf-8");
		expect(query.text).toBe(plain.text);
		expect(path.text).toBe(plain.text);
		const wsdl = plain.text;
		expect(wsdl).toMatch(
			/^<\?xml version="1\.0" encoding="utf-8"\?>\n<wsdl:definitions name="Soap11" targetNamespace="http:\/\/schemas\.servicestack\.net\/types"/,
		);
		expect(wsdl.match(/<xs:schema /g)).toHaveLength(3);
		expect(wsdl).toContain('targetNamespace="http://schemas.microsoft.com/2003/10/Serialization/"');
		expect(wsdl).toContain('targetNamespace="http://schemas.microsoft.com/2003/10/Serialization/Arrays"');
		expect(wsdl).toContain('<xs:simpleType name="guid">');
		expect(wsdl).toContain('<xs:element minOccurs="0" name="Id" type="ser:guid" />');
		expect(wsdl).toContain('<xs:element minOccurs="0" name="CreatedTime" type="xs:dateTime" />');
		expect(wsdl).toContain('<xs:element minOccurs="0" name="Interests" nillable="true" type="arr:ArrayOfstring" />');
		expect(wsdl).toContain(
			'<xs:complexType name="ArrayOfUser">\n        <xs:sequence>\n          <xs:element minOccurs="0" maxOccurs="unbounded" name="User" nillable="true" type="tns:User" />',
		);
		expect(wsdl).toContain('<xs:element minOccurs="0" name="Users" nillable="true" type="tns:ArrayOfUser" />');
		expect(wsdl).toMatch(
			/<xs:complexType name="ResponseStatus">\s*<xs:sequence>\s*<xs:element minOccurs="0" name="ErrorCode"[^>]*>\s*<xs:element minOccurs="0" name="Message"[^>]*>\s*<xs:element minOccurs="0" name="StackTrace"[^>]*>\s*<xs:element minOccurs="0" name="Errors" nillable="true" type="tns:ArrayOfResponseError" \/>/,
		);
		expect(wsdl).toContain('<wsdl:portType name="ISyncReply">');
		expect(wsdl).toContain('<wsdl:binding name="BasicHttpBinding_ISyncReply" type="svc:ISyncReply">');
		expect(wsdl).toContain('<soap:binding transport="http://schemas.xmlsoap.org/soap/http" />');
		expect(wsdl).toContain(
			'<soap:operation soapAction="http://schemas.servicestack.net/types/CreateUser" style="document" />',
		);
		expect(wsdl).toContain(
			`<wsdl:service name="SyncReply">\n    <wsdl:port name="BasicHttpBinding_ISyncReply" binding="svc:BasicHttpBinding_ISyncReply">\n      <soap:address location="${plaza.url}/soap11" />`,
		);
		for (const record of [
			"ResourceRequest",
			"ResourceResponse",
			"Resources",
			"ResourcesResponse",
			"MethodDescription",
			"MethodOperation",
			"ErrorResponseStatus",
			"MethodOperationParameter",
			"ParameterAllowableValues",
			"SwaggerModel",
			"ModelProperty",
			"RestService",
			"Registration",
			"RegistrationResponse",
			"Auth",
			"AuthResponse",
		]) {
			expect(wsdl).toContain(`<xs:complexType name="${record}">`);
		}
		expect(wsdl).toContain('<xs:element minOccurs="0" name="code" type="xs:int" />');

		// Members are in ordinal order, as DataContract writes them.
		const user = /<xs:complexType name="User">([\s\S]*?)<\/xs:complexType>/.exec(wsdl)?.[1] ?? "";
		const members = [...user.matchAll(/name="(\w+)"/g)].map(m => m[1]);
		expect(members.length).toBeGreaterThan(20);
		expect(members).toEqual([...members].sort());
	});

	test("GET /resources lists the resources (Swagger 1.2), to anyone", async () => {
		const reply = await plaza.http<Json & { apis: RestService[] }>("GET", "/resources");
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ apiVersion: "1.0", swaggerVersion: "1.2", basePath: plaza.url });
		expect(reply.body.apis).toEqual(
			expect.arrayContaining([
				{ path: "/resource/Users", description: expect.stringContaining("FindUser") },
				{ path: "/resource/register", description: "Registration" },
			]),
		);
	});

	test("GET /resource/{Name} describes a resource's paths, operations, parameters and models", async () => {
		const reply = await plaza.http<ResourceResponse>("GET", "/resource/users");
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ apiVersion: "1.0", basePath: plaza.url, resourcePath: "/Users" });
		const byPath = new Map(reply.body.apis.map(a => [a.path, a]));
		const find = byPath.get("/Users/{Id}")?.operations.find(o => o.nickname === "FindUser");
		expect(find).toMatchObject({
			httpMethod: "GET",
			responseClass: "User",
			summary: "Retrieve one user",
			notes: expect.stringContaining("Signed-in callers only"),
		});
		expect(find?.parameters).toEqual([
			expect.objectContaining({
				name: "Id",
				paramType: "path",
				dataType: "string",
				required: true,
				allowMultiple: false,
			}),
		]);
		expect(find?.errorResponses.map(e => e.code)).toEqual([400, 401, 429, 503]);

		const all = byPath.get("/Users")?.operations.find(o => o.nickname === "AllUsers");
		expect(all).toMatchObject({ httpMethod: "GET", responseClass: "List[User]" });
		expect(all?.parameters).toEqual([
			expect.objectContaining({
				name: "Offset",
				paramType: "query",
				dataType: "int",
				required: false,
				allowableValues: { valueType: "RANGE", min: 0, values: [] },
			}),
			expect.objectContaining({
				name: "Limit",
				paramType: "query",
				dataType: "int",
				allowableValues: { valueType: "RANGE", min: 0, max: 1000, values: [] },
			}),
			expect.objectContaining({ name: "AfterId", paramType: "query", dataType: "string", required: false }),
		]);
		const create = byPath.get("/Users")?.operations.find(o => o.nickname === "CreateUser");
		expect(create?.parameters).toEqual([
			expect.objectContaining({ name: "body", paramType: "body", dataType: "CreateUser", required: true }),
		]);
		expect(create?.errorResponses.map(e => e.code)).toContain(403);

		expect(reply.body.models.User.properties).toMatchObject({
			Id: { type: "string" },
			Interests: { type: "List", items: { type: "string" } },
			Connections: { type: "List", items: { $ref: "Connection" } },
			CreatedTime: { type: "Date" },
		});
		expect(reply.body.models.CreateUser.properties).toMatchObject({
			FirstName: { type: "string", required: true },
			Email: { required: false },
		});
		expect(reply.body.models.Connection).toBeDefined();

		const unknown = await plaza.http<ErrorBody>("GET", "/resource/Nothing");
		expect(unknown.status).toBe(404);
		expect(unknown.body.ResponseStatus.ErrorCode).toBe("NotFound");
	});

	test("apiKey: the administrator's key is taken, any other is a 401; the description is the same for everyone", async () => {
		const anonymous = await plaza.http("GET", "/resource/Users");
		const admin = await plaza.http("GET", `/resource/Users?apiKey=${ADMIN_KEY}`);
		expect(admin.status).toBe(200);
		expect(admin.text).toBe(anonymous.text);
		const wrong = await plaza.http<ErrorBody>("GET", "/resources?apiKey=guess");
		expect(wrong.status).toBe(401);
		expect(wrong.body.ResponseStatus).toMatchObject({ ErrorCode: "Unauthorized", Message: "The apiKey is not valid" });
	});

	test("GET /openapi.json is an OpenAPI 3 document: routes, request schemas, responses, the error shape, security", async () => {
		const reply = await plaza.http<OpenApi>("GET", "/openapi.json");
		expect(reply.status).toBe(200);
		const doc = reply.body;
		expect(doc).toMatchObject({ openapi: "3.0.3", info: { title: "Plaza", version: "1.0" } });
		expect(doc.components.securitySchemes).toEqual({
			sessionCookie: expect.objectContaining({ type: "apiKey", in: "cookie", name: "ss-id" }),
			sessionHeader: expect.objectContaining({ type: "apiKey", in: "header", name: "X-ss-id" }),
			basic: expect.objectContaining({ type: "http", scheme: "basic" }),
			bearer: expect.objectContaining({ type: "http", scheme: "bearer" }),
			apiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "X-Api-Key" }),
			tokenCookie: expect.objectContaining({ type: "apiKey", in: "cookie", name: "ss-tok" }),
		});
		const find = doc.paths["/Users/{Id}"].get;
		expect(find).toMatchObject({
			operationId: "FindUser",
			parameters: [
				expect.objectContaining({
					name: "Id",
					in: "path",
					required: true,
					schema: expect.objectContaining({ type: "string", format: "guid" }),
				}),
			],
		});
		expect(find.responses["200"]).toEqual({
			description: "Success",
			content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } },
		});
		expect(find.responses["401"]).toMatchObject({
			content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
		});
		expect(find.security).not.toContainEqual({});
		expect(doc.paths["/Users"].post.security).toContainEqual({ bearer: [] });
		expect(doc.paths["/Users"].post.security).not.toContainEqual({});
		expect(doc.paths["/Users"].post).toMatchObject({
			operationId: "CreateUser",
			requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/CreateUser" } } } },
		});
		expect(doc.paths["/register"].post.security).toContainEqual({});
		expect(doc.paths["/Users"].get.responses["200"]).toEqual({
			description: "Success",
			content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/User" } } } },
		});
		expect(doc.components.schemas.CreateUser).toMatchObject({
			type: "object",
			required: ["FirstName", "LastName"],
			properties: { Email: { type: "string", format: "email", maxLength: 254 } },
		});
		expect(doc.components.schemas.ResponseStatus).toMatchObject({
			properties: {
				ErrorCode: { type: "string" },
				Errors: { type: "array", items: { $ref: "#/components/schemas/ResponseError" } },
			},
		});
		expect(doc.components.schemas.ErrorResponse).toMatchObject({
			properties: { ResponseStatus: { $ref: "#/components/schemas/ResponseStatus" } },
		});
		// Every $ref points at a schema that exists.
		const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/(\w+)"/g)].map(m => m[1]);
		expect(refs.filter(name => !doc.components.schemas[name])).toEqual([]);
	});

	test("the OpenAPI document passes Redocly's lint: no error, and no warning but the missing licence", async () => {
		const dir = mkdtempSync(path.join(tmpdir(), "plaza-openapi-"));
		try {
			const file = path.join(dir, "openapi.json");
			writeFileSync(file, (await plaza.http("GET", "/openapi.json")).text);
			const lint = await runTool(tool("redocly"), ["lint", file, "--format=json"], {
				encoding: "utf8",
				env: quietTools,
				timeout: 60_000,
			});
			const problems = (
				JSON.parse(lint.stdout) as { problems: Array<{ ruleId: string; severity: string; message: string }> }
			).problems;
			expect(problems.filter(p => p.severity === "error")).toEqual([]);
			// Plaza is not published under a licence (package.json: UNLICENSED), so the document names none.
			expect(problems.map(p => p.ruleId)).toEqual(["info-license"]);
			expect(lint.status).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test("openapi-typescript (default options) gives types that compile and leave fields with a server default optional", async () => {
		const dir = mkdtempSync(path.join(tmpdir(), "plaza-openapi-ts-"));
		try {
			const file = path.join(dir, "openapi.json");
			writeFileSync(file, (await plaza.http("GET", "/openapi.json")).text);
			const generated = await runTool(tool("openapi-typescript"), [file, "-o", path.join(dir, "plaza.ts")], {
				encoding: "utf8",
				env: quietTools,
				timeout: 60_000,
			});
			expect(generated.status).toBe(0);
			const types = readFileSync(path.join(dir, "plaza.ts"), "utf8");
			const createPost = /^ {8}CreatePost: \{([\s\S]*?)^ {8}\};/m.exec(types)?.[1] ?? "";
			expect(createPost).toMatch(/^\s*AuthorId: string;$/m);
			for (const field of ["IsPrivate", "MessageType"])
				expect(createPost).toMatch(new RegExp(`^\\s*${field}\\?: `, "m"));

			// A client writes a CreatePost with its required fields only; leaving one of those out does not compile.
			writeFileSync(
				path.join(dir, "client.ts"),
				[
					'import type { components, operations } from "./plaza";',
					'const post: components["schemas"]["CreatePost"] = { AuthorId: "0f8fad5bd9cb469fa16570867728950e", Content: "Hello" };',
					'const network: components["schemas"]["CreateNetwork"] = { OwnerId: "0f8fad5bd9cb469fa16570867728950e", Name: "Readers" };',
					'const page: NonNullable<operations["AllUsers"]["parameters"]["query"]> = {};',
					"// @ts-expect-error Content is required",
					'const missing: components["schemas"]["CreatePost"] = { AuthorId: "0f8fad5bd9cb469fa16570867728950e" };',
					"export { post, network, page, missing };",
					"",
				].join("\n"),
			);
			const tsc = await runTool(
				tool("tsc"),
				[
					"--strict",
					"--noEmit",
					"--target",
					"es2022",
					"--module",
					"commonjs",
					"--moduleResolution",
					"node",
					"--skipLibCheck",
					path.join(dir, "client.ts"),
				],
				{ encoding: "utf8", timeout: 120_000 },
			);
			expect(tsc.stdout + tsc.stderr).toBe("");
			expect(tsc.status).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 120_000);

	test("the description routes keep the API's strict security headers", async () => {
		for (const path of ["/resources", "/openapi.json", "/soap11?wsdl"]) {
			const reply = await plaza.http("GET", path);
			expect(reply.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
			expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
		}
	});
});
