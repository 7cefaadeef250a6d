import { spawn } from "node:child_process";
import path from "node:path";
import { ADMIN_KEY, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { comparable } from "./support/soap";
import { describeNeeding, hasZeep, zeepPython as python } from "./support/machine-tools";

const script = path.join(__dirname, "support", "zeep_client.py");

type Results = Record<string, Record<string, unknown> & { ResponseStatus?: Record<string, unknown> | null }>;

function runZeep(scenario: unknown): Promise<Results> {
	return new Promise((resolve, reject) => {
		const child = spawn(python, [script], { stdio: ["pipe", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout.on("data", chunk => (out += chunk));
		child.stderr.on("data", chunk => (err += chunk));
		child.once("error", reject);
		child.once("exit", code =>
			code === 0 ? resolve(JSON.parse(out) as Results) : reject(new Error(`zeep exited ${code}:\n${err}`)),
		);
		child.stdin.end(JSON.stringify(scenario));
	});
}

describeNeeding("python3-zeep", hasZeep)("SOAP 1.1 with python3-zeep in strict mode, from Plaza's own WSDL", () => {
	let plaza: TestPlaza;
	let ann: Session;
	let bob: Session;
	let results: Results;
	const newUserName = `zeep${Date.now()}`;

	beforeAll(async () => {
		plaza = await startPlaza();
		[ann, bob] = await Promise.all([
			plaza.signUp({ FirstName: "Ann", LastName: "Zeep" }),
			plaza.signUp({ FirstName: "Bob", LastName: "Zeep" }),
		]);
		const post = (await ann.http("POST", "/Posts", { AuthorId: ann.userId, Content: "Comment on me from Python" }))
			.body;
		results = await runZeep({
			url: plaza.url,
			adminKey: ADMIN_KEY,
			ann: { userId: ann.userId, token: ann.token },
			bob: { userId: bob.userId },
			postId: post.Id,
			newUserName,
		});
	}, 60_000);
	afterAll(() => plaza.stop());

	test("CreateUser, FindUser and AllUsers return what the JSON route returns", async () => {
		const user = results.CreateUser.User as Record<string, unknown>;
		expect(user).toMatchObject({ FirstName: "Zed", LastName: "Zeep", Interests: { string: ["python", "soap"] } });
		const json = await plaza.admin("GET", `/Users/${String(user.Id).replace(/-/g, "")}`);
		expect(comparable(user)).toEqual(comparable(json.body));
		expect(json.body.CreatedTime).toBe("/Date(1732269600000+0000)/");
		expect(comparable(results.FindUser.User)).toEqual(comparable(json.body));
		const all = await plaza.admin<WireRecord[]>("GET", "/Users?Limit=1000");
		expect(comparable(results.AllUsers.Users)).toEqual(comparable(all.body));
	});

	test("CreateConnection, CreateComment and FindComment return what the JSON route returns", async () => {
		const connections = await ann.http<WireRecord[]>("GET", `/Users/${ann.userId}/Connections`);
		expect(comparable(results.CreateConnection.Connections)).toEqual(
			expect.arrayContaining([comparable(connections.body[0])]),
		);
		const comment = results.CreateComment.Comment as Record<string, unknown>;
		const json = await ann.http("GET", `/Comments/${String(comment.Id).replace(/-/g, "")}`);
		expect(json.body).toMatchObject({ Content: "zeep says hello", ContentCreatedTime: "/Date(1706933106000+0000)/" });
		expect(comparable(comment)).toEqual(comparable(json.body));
		expect(comparable(results.FindComment.Comment)).toEqual(comparable(json.body));
	});

	test("Registration and Auth sign in; errors come back in the <Op>Response's ResponseStatus", async () => {
		expect(results.Registration).toMatchObject({ UserName: newUserName, SessionId: expect.any(String) });
		expect(results.Auth).toMatchObject({ UserId: results.Registration.UserId, SessionId: expect.any(String) });
		expect((await plaza.http("GET", "/auth", undefined, { "X-ss-id": String(results.Auth.SessionId) })).status).toBe(
			200,
		);
		expect(results.invalid.ResponseStatus).toMatchObject({
			ErrorCode: "NotEmpty",
			Errors: { ResponseError: [expect.objectContaining({ FieldName: "LastName" })] },
		});
		expect(results.forbidden.ResponseStatus).toMatchObject({ ErrorCode: "Forbidden" });
		expect(results.Resources).toMatchObject({ swaggerVersion: "1.2", apiVersion: "1.0" });
	});
});
