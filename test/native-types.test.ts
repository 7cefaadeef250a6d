import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { JsonServiceClient } from "@servicestack/client";
import { startPlaza, TestPlaza } from "./support/plaza";

const run = promisify(execFile);
const bin = (name: string) => resolve(__dirname, "../node_modules/.bin", name);
// The CLI reports each reference it saves to servicestack.net unless told not to.
const cliEnv = { ...process.env, SERVICESTACK_TELEMETRY_OPTOUT: "1" };

/** A request DTO as the generated module exports it: a class whose instances the client sends. */
type Dto = { getTypeName(): string; getMethod(): string; createResponse(): unknown };
type DtoClass = new (init?: Record<string, unknown>) => Dto;

describe("Add ServiceStack Reference: /types/typescript and /types/csharp, used by the official CLI and client", () => {
	let plaza: TestPlaza;
	let dir: string;
	let dtos: string;
	let types: Record<string, DtoClass>;

	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
		dir = mkdtempSync(join(tmpdir(), "plaza-native-types-"));
		await run(bin("typescript-ref"), [plaza.url, "dtos.ts"], { cwd: dir, env: cliEnv });
		dtos = readFileSync(join(dir, "dtos.ts"), "utf8");
		// The DTOs as a client project runs them: transpiled to CommonJS and required.
		writeFileSync(
			join(dir, "dtos.js"),
			ts.transpileModule(dtos, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 } })
				.outputText,
		);
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the file is written at run time: no static import can name it
		types = require(join(dir, "dtos.js")) as Record<string, DtoClass>;
	}, 60_000);
	afterAll(async () => {
		await plaza.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	test("typescript-ref saves DTOs with the options header, routes, verbs and IReturn of each operation", () => {
		expect(dtos).toMatch(/^\/\* Options:\nDate: .+\nVersion: .+\n.*\nBaseUrl: http:\/\/127\.0\.0\.1:\d+\n/);
		expect(dtos).toContain('// @Route("/Users/{Id}", "GET")\nexport class FindUser implements IReturn<User>, IGet\n{');
		expect(dtos).toContain(
			"public getTypeName() { return 'UpdateUser'; }\n    public getMethod() { return 'PUT'; }\n    public createResponse() { return new User(); }",
		);
		expect(dtos).toContain("export class AllPostRecipients implements IReturn<Recipient[]>, IGet");
		expect(dtos).toMatch(
			/export class Post\n\{[^}]*public Id\?: string;[^}]*public IsPrivate\?: boolean;[^}]*public MessageType\?: number;[^}]*public Recipients\?: Recipient\[\];[^}]*public CreatedTime\?: string;[^}]*public ResponseStatus\?: ResponseStatus;/,
		);
	});

	test("the saved DTOs compile under tsc --strict beside @servicestack/client", async () => {
		// A client project's own code: the generated requests must satisfy the client's own types.
		writeFileSync(
			join(dir, "client.ts"),
			[
				'import { JsonServiceClient } from "@servicestack/client";',
				'import { CreatePost, FindPost, Post, UpdateUser, User } from "./dtos";',
				"export async function use(client: JsonServiceClient): Promise<[Post, User, Post[]]> {",
				'\tconst post: Post = await client.post(new CreatePost({ AuthorId: "a", Content: "hello" }));',
				'\tconst user: User = await client.put(new UpdateUser({ Id: "a", FirstName: "Ada", LastName: "Lovelace" }));',
				"\tconst all: Post[] = await client.sendAll([new FindPost({ Id: post.Id })]);",
				"\tconst result = await client.api(new FindPost({ Id: post.Id }));",
				"\treturn [result.response ?? post, user, all];",
				"}",
			].join("\n"),
		);
		// The project's packages, as the client project would have them installed.
		symlinkSync(resolve(__dirname, "../node_modules"), join(dir, "node_modules"), "dir");
		const failure = await run(
			bin("tsc"),
			[
				"--strict",
				"--noEmit",
				"--target",
				"es2020",
				"--module",
				"commonjs",
				"--moduleResolution",
				"node",
				"dtos.ts",
				"client.ts",
			],
			{ cwd: dir },
		).then(
			() => "",
			(err: { stdout: string; stderr: string }) => err.stdout + err.stderr,
		);
		expect(failure).toBe("");
	}, 60_000);

	test("a JsonServiceClient with the generated DTOs signs in, posts, finds, updates, batches and uses api()", async () => {
		const me = await plaza.signUp({ FirstName: "Typed", LastName: "Client" });
		const client = new JsonServiceClient(plaza.url);
		const auth = (await client.post(
			new types.Auth({ provider: "credentials", UserName: me.userName, Password: me.password }),
		)) as { UserId: string };
		expect(auth.UserId).toBe(me.userId);

		const created = (await client.post(
			new types.CreatePost({ AuthorId: me.userId, Content: "Hello from generated DTOs", Tags: ["typed"] }),
		)) as { Id: string; Content: string };
		expect(created.Content).toBe("Hello from generated DTOs");

		const found = (await client.get(new types.FindPost({ Id: created.Id }))) as { Id: string; AuthorId: string };
		expect(found).toMatchObject({ Id: created.Id, AuthorId: me.userId });

		const updated = (await client.put(
			new types.UpdateUser({ Id: me.userId, FirstName: "Renamed", LastName: "Client" }),
		)) as { FirstName: string };
		expect(updated.FirstName).toBe("Renamed");

		const viaApi = await client.api(new types.FindUser({ Id: me.userId }));
		expect(viaApi.succeeded).toBe(true);
		expect(viaApi.response).toMatchObject({ Id: me.userId, FirstName: "Renamed" });

		const missing = await client.api(new types.FindPost({ Id: "0".repeat(32) }));
		expect(missing.error).toMatchObject({ errorCode: "NotFound" });

		const second = (await client.post(new types.CreatePost({ AuthorId: me.userId, Content: "A second one" }))) as {
			Id: string;
		};
		const batch = (await client.sendAll([
			new types.FindPost({ Id: second.Id }),
			new types.FindPost({ Id: created.Id }),
		])) as Array<{ Id: string }>;
		expect(batch.map(p => p.Id)).toEqual([second.Id, created.Id]);
	});

	test("csharp-ref saves C# DTOs with [Route] attributes and IReturn<T>", async () => {
		await run(bin("csharp-ref"), [plaza.url, "dtos.cs"], { cwd: dir, env: cliEnv });
		const cs = readFileSync(join(dir, "dtos.cs"), "utf8");
		expect(cs).toMatch(/^\/\* Options:\n/);
		expect(cs).toContain(
			'    [Route("/Users/{Id}", "GET")]\n    public partial class FindUser\n        : IReturn<User>, IGet\n    {\n        [Required]\n        public virtual Guid Id { get; set; }',
		);
		expect(cs).toContain("public partial class AllPostRecipients\n        : IReturn<List<Recipient>>, IGet");
		expect(cs).toContain("public virtual DateTime? CreatedTime { get; set; }");
	});

	test("updating a reference sends its uncommented options back: IncludeTypes keeps what one request needs", async () => {
		const path = join(dir, "dtos.ts");
		writeFileSync(path, dtos.replace("//IncludeTypes: ", "IncludeTypes: FindUser.*"));
		await run(bin("typescript-ref"), ["dtos.ts"], { cwd: dir, env: cliEnv });
		const updated = readFileSync(path, "utf8");
		expect(updated).toContain("IncludeTypes: FindUser.*");
		expect(updated).toContain("export class FindUser implements");
		expect(updated).toContain("export class User\n");
		expect(updated).not.toContain("export class CreatePost ");
	});

	test("options from the query cannot write code into the DTOs' header comment", async () => {
		const reply = await plaza.http(
			"GET",
			`/types/typescript?IncludeTypes=${encodeURIComponent("*/ globalThis.owned = 1; /*,FindUser")}`,
		);
		expect(reply.status).toBe(200);
		expect(reply.text).toContain("IncludeTypes: FindUser\n");
		expect(reply.text).not.toContain("owned");
	});

	test("/types/metadata describes every operation with its routes and types", async () => {
		const reply = await plaza.http<{
			Operations: Array<{
				Request: { Name: string };
				Response: { Name: string; GenericArgs?: string[] };
				Routes: Array<{ Path: string; Verbs: string }>;
			}>;
		}>("GET", "/types/metadata");
		expect(reply.status).toBe(200);
		const findUser = reply.body.Operations.find(op => op.Request.Name === "FindUser");
		expect(findUser).toMatchObject({ Response: { Name: "User" }, Routes: [{ Path: "/Users/{Id}", Verbs: "GET" }] });
	});
});
