import { JsonServiceClient } from "@servicestack/client";
import { Authenticate, CreatePost, DeleteConnection, FindPost, Post, UpdateUser } from "./support/client-dtos";
import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";

const cookieOf = (user: Session) => ({ Cookie: `ss-id=${user.token}` });
let tags = 0;
/** A tag no other test uses, to find exactly the posts a test made. */
const freshTag = () => `gen${++tags}${Date.now()}`;

describe("the generic route by every verb, one-way calls and auto-batched requests (PRODUCT.md §1)", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["posts"] });
	});
	afterAll(() => plaza.stop());

	/**
	 * A ServiceStack client signed in as the user by Authenticate: it calls with the session cookie it
	 * got, on /api/{Op} (its default) or on ServiceStack's older /json/reply and /json/oneway.
	 */
	async function clientOf(user: Session, routes: "api" | "json" = "api"): Promise<JsonServiceClient> {
		const client = new JsonServiceClient(plaza.url);
		if (routes === "json") client.useBasePath();
		await client.post(new Authenticate({ UserName: user.userName, Password: user.password }));
		return client;
	}

	async function postsTagged(user: Session, tag: string): Promise<WireRecord[]> {
		const reply = await user.http<WireRecord[]>("GET", `/json/reply/SearchPostsByTag?TagNames=${tag}&Limit=1000`);
		expect(reply.status).toBe(200);
		return reply.body;
	}

	async function connect(owner: Session, other: Session): Promise<string> {
		const reply = await owner.http<WireRecord[]>("POST", "/json/reply/CreateConnection", {
			OwnerId: owner.userId,
			ConnectToId: other.userId,
		});
		expect(reply.status).toBe(200);
		return reply.body[0].Id;
	}

	test("client.put(UpdateUser) and client.api() of a PUT DTO change the user (PUT /api/UpdateUser)", async () => {
		const user = await plaza.signUp({ FirstName: "Before", LastName: "Put" });
		const client = await clientOf(user);
		const updated = await client.put(new UpdateUser({ Id: user.userId, FirstName: "Putting", LastName: "Client" }));
		expect(updated).toMatchObject({ Id: user.userId, FirstName: "Putting", LastName: "Client" });

		const result = await client.api(new UpdateUser({ Id: user.userId, FirstName: "Api", LastName: "Verb" }));
		expect(result.error).toBeUndefined();
		expect(result.response).toMatchObject({ Id: user.userId, FirstName: "Api" });
		expect((await user.http("GET", `/Users/${user.userId}`)).body).toMatchObject({
			FirstName: "Api",
			LastName: "Verb",
		});
	});

	test("client.delete(DeleteConnection) removes the connection (DELETE /api/DeleteConnection?Id=…)", async () => {
		const [owner, other] = [await plaza.signUp(), await plaza.signUp()];
		const id = await connect(owner, other);
		const client = await clientOf(owner);
		expect(await client.delete(new DeleteConnection({ Id: id, OwnerId: owner.userId }))).toMatchObject({
			Id: id,
			OwnerId: owner.userId,
		});
		const found = await owner.http<{ Connections?: unknown[] }>("GET", `/Users/${owner.userId}`);
		expect(found.body.Connections ?? []).toEqual([]);
		// Gone: a second delete finds nothing.
		await expect(client.delete(new DeleteConnection({ Id: id, OwnerId: owner.userId }))).rejects.toMatchObject({
			responseStatus: { errorCode: "NotFound" },
		});
	});

	test("PATCH and DELETE reach /json/reply/{Op} too, with fields in the body or the query string", async () => {
		const [owner, other] = [await plaza.signUp(), await plaza.signUp()];
		const patched = await owner.http("PATCH", "/json/reply/UpdateUser", {
			Id: owner.userId,
			FirstName: "Patched",
			LastName: "Body",
		});
		expect(patched.status).toBe(200);
		expect(patched.body).toMatchObject({ Id: owner.userId, FirstName: "Patched" });

		const byQuery = await owner.http(
			"DELETE",
			`/json/reply/DeleteConnection?Id=${await connect(owner, other)}&OwnerId=${owner.userId}`,
		);
		expect(byQuery.status).toBe(200);
		const byBody = await owner.http("DELETE", "/json/reply/deleteconnection", {
			Id: await connect(owner, other),
			OwnerId: owner.userId,
		});
		expect(byBody.status).toBe(200);
		expect(
			(await owner.http<{ Connections?: unknown[] }>("GET", `/Users/${owner.userId}`)).body.Connections ?? [],
		).toEqual([]);
		// The verbs follow the same rules: another user's connection is still not theirs to delete.
		const theirs = await connect(other, owner);
		expect(
			(await owner.http<ErrorBody>("DELETE", `/api/DeleteConnection?Id=${theirs}&OwnerId=${other.userId}`)).status,
		).toBe(403);
	});

	test("the cross-site rules hold on every verb, on /json/oneway and on batches", async () => {
		const victim = await plaza.signUp({ FirstName: "Victim" });
		const tag = freshTag();
		const evil = { ...cookieOf(victim), Origin: "https://evil.example" };
		const put = await plaza.http<ErrorBody>(
			"PUT",
			"/json/reply/UpdateUser",
			{ Id: victim.userId, FirstName: "Pwned", LastName: "X" },
			evil,
		);
		expect(put.status).toBe(403);
		const batch = await plaza.http<ErrorBody>(
			"POST",
			"/api/CreatePost[]",
			[{ AuthorId: victim.userId, Content: "spam", Tags: [tag] }],
			evil,
		);
		expect(batch.status).toBe(403);
		const oneWayByGet = await plaza.http<ErrorBody>(
			"GET",
			`/json/oneway/CreatePost?AuthorId=${victim.userId}&Content=spam&Tags=${tag}`,
			undefined,
			cookieOf(victim),
		);
		expect(oneWayByGet.status).toBe(403);
		expect(oneWayByGet.body.ResponseStatus.ErrorCode).toBe("Forbidden");
		expect(await postsTagged(victim, tag)).toEqual([]);
		expect((await victim.http("GET", `/Users/${victim.userId}`)).body.FirstName).toBe("Victim");
	});

	test("client.sendAll([FindPost…]) answers the posts in order (POST /api/FindPost[])", async () => {
		const author = await plaza.signUp();
		const ids: string[] = [];
		for (const content of ["first", "second", "third"])
			ids.push((await author.http("POST", "/Posts", { AuthorId: author.userId, Content: content })).body.Id);
		const client = await clientOf(author);
		let completed: string | null = null;
		client.responseFilter = res => {
			completed = res.headers.get("X-AutoBatch-Completed");
		};
		const posts = await client.sendAll(ids.map(Id => new FindPost({ Id })));
		expect(posts.map(p => [p.Id, p.Content])).toEqual([
			[ids[0], "first"],
			[ids[1], "second"],
			[ids[2], "third"],
		]);
		// As in ServiceStack, every batch that ran says how many of its requests completed: here all of them.
		expect(completed).toBe("3");
		// /json/reply/{Op}[] is the same batch; an empty one answers an empty array (and, running nothing, no count).
		const raw = await author.http<WireRecord[]>("POST", "/json/reply/FindPost[]", [{ Id: ids[2] }, { id: ids[0] }]);
		expect(raw.body.map(p => p.Id)).toEqual([ids[2], ids[0]]);
		expect(raw.headers.get("X-AutoBatch-Completed")).toBe("2");
		// A client that escapes the brackets reaches the same batch.
		expect(
			(await author.http<WireRecord[]>("POST", "/api/findpost%5B%5D", [{ Id: ids[1] }])).body.map(p => p.Id),
		).toEqual([ids[1]]);
		const empty = await author.http("POST", "/json/reply/FindPost[]", []);
		expect({ text: empty.text, completed: empty.headers.get("X-AutoBatch-Completed") }).toEqual({
			text: "[]",
			completed: null,
		});
		// A one-way batch's 204 carries the count too.
		const oneWay = await author.http("POST", "/json/oneway/FindPost[]", [{ Id: ids[0] }, { Id: ids[1] }]);
		expect({ status: oneWay.status, completed: oneWay.headers.get("X-AutoBatch-Completed") }).toEqual({
			status: 204,
			completed: "2",
		});
	});

	test("a failing request stops the batch: its error naming its index (ResponseStatus.Meta.AutoBatchIndex), X-AutoBatch-Completed, earlier requests done, later ones not run", async () => {
		const [author, other] = [await plaza.signUp(), await plaza.signUp()];
		const tag = freshTag();
		const client = await clientOf(author);
		let completed: string | null = null;
		client.responseFilter = res => {
			completed = res.headers.get("X-AutoBatch-Completed");
		};
		const requests = [
			new CreatePost({ AuthorId: author.userId, Content: "one", Tags: [tag] }),
			new CreatePost({ AuthorId: author.userId, Content: "two", Tags: [tag] }),
			new CreatePost({ AuthorId: other.userId, Content: "as someone else", Tags: [tag] }),
			new CreatePost({ AuthorId: author.userId, Content: "four", Tags: [tag] }),
		];
		// The client camel-cases the ResponseStatus it reads, Meta's keys too; on the wire it is AutoBatchIndex (below).
		await expect(client.sendAll(requests)).rejects.toMatchObject({
			responseStatus: { errorCode: "Forbidden", meta: { autoBatchIndex: "2" } },
		});
		expect(completed).toBe("2");
		expect((await postsTagged(author, tag)).map(p => p.Content).sort()).toEqual(["one", "two"]);

		// A validation failure of the first request: nothing completed.
		const invalid = await author.http<ErrorBody & { ResponseStatus: { Meta?: Record<string, string> } }>(
			"POST",
			"/api/CreatePost[]",
			[{ AuthorId: author.userId }, { AuthorId: author.userId, Content: "never", Tags: [tag] }],
		);
		expect(invalid.status).toBe(400);
		expect(invalid.headers.get("X-AutoBatch-Completed")).toBe("0");
		expect(invalid.body.ResponseStatus.Errors[0]).toMatchObject({ FieldName: "Content", ErrorCode: "NotEmpty" });
		expect(invalid.body.ResponseStatus.Meta).toEqual({ AutoBatchIndex: "0" });
		// A single call's failure names no batch index.
		expect(
			(await author.http<ErrorBody>("POST", "/api/CreatePost", { AuthorId: author.userId })).body.ResponseStatus,
		).not.toHaveProperty("Meta");
		expect(await postsTagged(author, tag)).toHaveLength(2);
	});

	test("a batch is a JSON array of at most 100 objects, read whole before any runs", async () => {
		const author = await plaza.signUp();
		const tag = freshTag();
		const post = { AuthorId: author.userId, Content: "batched", Tags: [tag] };
		const tooMany = await author.http<ErrorBody>(
			"POST",
			"/json/reply/CreatePost[]",
			Array.from({ length: 101 }, () => post),
		);
		expect(tooMany.status).toBe(413);
		expect(tooMany.body.ResponseStatus.ErrorCode).toBe("PayloadTooLarge");
		const notArray = await author.http<ErrorBody>("POST", "/json/reply/CreatePost[]", post);
		expect(notArray.status).toBe(400);
		expect(notArray.body.ResponseStatus.ErrorCode).toBe("InvalidBody");
		const notObject = await author.http<ErrorBody>("POST", "/json/reply/CreatePost[]", [post, "text"]);
		expect(notObject.status).toBe(400);
		expect(notObject.headers.get("X-AutoBatch-Completed")).toBeNull();
		expect(await postsTagged(author, tag)).toEqual([]);
		expect(
			(
				await author.http(
					"POST",
					"/json/reply/CreatePost[]",
					Array.from({ length: 100 }, () => post),
				)
			).status,
		).toBe(200);
		expect(await postsTagged(author, tag)).toHaveLength(100);
		expect((await author.http<ErrorBody>("POST", "/json/reply/NoSuchOperation[]", [post])).status).toBe(404);
	});

	test("/json/oneway/{Op} runs the operation and answers 204 with no body; its refusals still answer", async () => {
		const author = await plaza.signUp();
		const tag = freshTag();
		const client = await clientOf(author, "json");
		expect(
			await client.sendOneWay(new CreatePost({ AuthorId: author.userId, Content: "one way", Tags: [tag] })),
		).toEqual(new Post());
		expect((await postsTagged(author, tag)).map(p => p.Content)).toEqual(["one way"]);

		const raw = await author.http("POST", "/json/oneway/CreatePost", {
			AuthorId: author.userId,
			Content: "raw one way",
			Tags: [tag],
		});
		expect(raw.status).toBe(204);
		expect(raw.text).toBe("");
		expect(await postsTagged(author, tag)).toHaveLength(2);

		const invalid = await author.http<ErrorBody>("POST", "/json/oneway/CreatePost", {
			AuthorId: author.userId,
			Tags: [tag],
		});
		expect(invalid.status).toBe(400);
		expect(invalid.body.ResponseStatus.ErrorCode).toBe("NotEmpty");
		const anonymous = await plaza.http<ErrorBody>("POST", "/json/oneway/CreatePost", {
			AuthorId: author.userId,
			Content: "who?",
		});
		expect(anonymous.status).toBe(401);
		expect((await author.http("POST", "/json/oneway/NoSuchOperation", {})).status).toBe(404);
	});

	test("client.sendAllOneWay([CreatePost…]) creates every post (POST /json/oneway/CreatePost[], 204)", async () => {
		const author = await plaza.signUp();
		const tag = freshTag();
		const client = await clientOf(author, "json");
		let status = 0;
		client.responseFilter = res => {
			status = res.status;
		};
		await client.sendAllOneWay(
			["a", "b", "c"].map(Content => new CreatePost({ AuthorId: author.userId, Content, Tags: [tag] })),
		);
		expect(status).toBe(204);
		expect((await postsTagged(author, tag)).map(p => p.Content).sort()).toEqual(["a", "b", "c"]);
		// The client's default base path sends one-way batches to /api/{Op}[], which answers the records.
		const apiClient = await clientOf(author, "api");
		await apiClient.sendAllOneWay([new CreatePost({ AuthorId: author.userId, Content: "d", Tags: [tag] })]);
		expect(await postsTagged(author, tag)).toHaveLength(4);
	});

	test("each request of a batch spends the caller's request budget", async () => {
		const limited = await startPlaza({ services: ["posts"], rateLimitPerMinute: 3 });
		try {
			const pages = Array.from({ length: 5 }, () => ({ Offset: 0, Limit: 1 }));
			const reply = await limited.admin<ErrorBody>("POST", "/json/reply/AllUsers[]", pages);
			expect(reply.status).toBe(429);
			expect(reply.body.ResponseStatus.ErrorCode).toBe("TooManyRequests");
			expect(reply.headers.get("X-AutoBatch-Completed")).toBe("3");
		} finally {
			await limited.stop();
		}
	});
});
