import { ADMIN_KEY, ErrorBody, startPlaza, TestPlaza } from "./support/plaza";
import { createUser } from "./support/users";
import { WithRepository } from "../shared/persistence/repository.mixin";
import { UsersRepository } from "../services/users/users.repository";

describe("bad input gets the PRODUCT.md §2 status and ErrorCode, and changes nothing", () => {
	let plaza: TestPlaza;
	let usersBefore: number;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"], maxBodyBytes: 64 * 1024 });
		await createUser(plaza);
	});
	beforeEach(async () => {
		usersBefore = await plaza.count("users", "users");
	});
	afterEach(async () => {
		expect(await plaza.count("users", "users")).toBe(usersBefore);
	});
	afterAll(() => plaza.stop());

	const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
		plaza.http<ErrorBody>("POST", path, body, { Authorization: `Bearer ${ADMIN_KEY}`, ...headers });

	test("a missing required field is 400 NotEmpty naming the field", async () => {
		const reply = await post("/json/reply/CreateUser", { LastName: "Only" });
		expect(reply.status).toBe(400);
		expect(reply.body).toEqual({
			ResponseStatus: {
				ErrorCode: "NotEmpty",
				Message: "FirstName is required",
				Errors: [{ ErrorCode: "NotEmpty", FieldName: "FirstName", Message: "FirstName is required" }],
			},
		});
	});

	test("an empty required string counts as missing", async () => {
		const reply = await post("/Users", { FirstName: "  ", LastName: "Blank" });
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "NotEmpty", FieldName: "FirstName" }),
		]);
	});

	test("a malformed GUID is 400 InvalidGuid, on a path and in a body", async () => {
		for (const reply of [
			await plaza.admin<ErrorBody>("GET", "/Users/not-a-guid"),
			await post("/json/reply/FindUser", { Id: "1234" }),
		]) {
			expect(reply.status).toBe(400);
			expect(reply.body.ResponseStatus).toMatchObject({
				ErrorCode: "InvalidGuid",
				Errors: [expect.objectContaining({ ErrorCode: "InvalidGuid", FieldName: "Id" })],
			});
		}
	});

	test("wrong types are 400 InvalidValue, every bad field listed", async () => {
		const reply = await post("/Users", {
			FirstName: "Typed",
			LastName: "Wrong",
			Cloaked: "sometimes",
			Interests: { a: 1 },
			Email: "not-an-email",
		});
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors.map(e => [e.FieldName, e.ErrorCode])).toEqual([
			["Email", "Email"],
			["Interests", "InvalidValue"],
			["Cloaked", "InvalidValue"],
		]);
	});

	test("a value over its length limit is a 400 field error", async () => {
		const reply = await post("/Users", { FirstName: "x".repeat(101), LastName: "Long" });
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.Errors).toEqual([
			expect.objectContaining({ ErrorCode: "MaximumLength", FieldName: "FirstName" }),
		]);
	});

	test("malformed JSON is 400 InvalidBody", async () => {
		const reply = await post("/Users", '{"FirstName": "Broken",', { "Content-Type": "application/json" });
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus).toMatchObject({ ErrorCode: "InvalidBody", Errors: [] });
	});

	test("a JSON body that is not an object is 400 InvalidBody", async () => {
		const reply = await post("/Users", [{ FirstName: "In", LastName: "Array" }]);
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("InvalidBody");
	});

	test("a body over the size limit is 413 PayloadTooLarge", async () => {
		const reply = await post("/Users", { FirstName: "Big", LastName: "Body", AboutMe: "x".repeat(70 * 1024) });
		expect(reply.status).toBe(413);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("PayloadTooLarge");
	});

	test("an unknown operation is 404 NotFound", async () => {
		const reply = await post("/json/reply/LaunchRockets", {});
		expect(reply.status).toBe(404);
		expect(reply.body.ResponseStatus).toMatchObject({
			ErrorCode: "NotFound",
			Message: "The operation LaunchRockets was not found",
		});
	});

	test("an unknown route is 404 NotFound", async () => {
		const reply = await plaza.http<ErrorBody>("GET", "/Nowhere/At/All");
		expect(reply.status).toBe(404);
		expect(reply.body.ResponseStatus.ErrorCode).toBe("NotFound");
	});

	test("an unknown id is 404 NotFound", async () => {
		const reply = await plaza.admin<ErrorBody>("GET", "/Users/0f8fad5bd9cb469fa16570867728950e");
		expect(reply.status).toBe(404);
		expect(reply.body.ResponseStatus).toMatchObject({
			ErrorCode: "NotFound",
			Message: "User 0f8fad5bd9cb469fa16570867728950e was not found",
		});
	});
});

describe("failures of the server", () => {
	const failingStore = (plaza: TestPlaza) => {
		(plaza.broker.getLocalService("users") as unknown as WithRepository<UsersRepository>).repo.page = () =>
			Promise.reject(new Error("EACCES: permission denied, open '/srv/plaza/data/users.db'"));
	};

	test("an unexpected error is 500 InternalError with no internals in production mode", async () => {
		const plaza = await startPlaza({ services: ["users"] });
		try {
			failingStore(plaza);
			const reply = await plaza.admin<ErrorBody>("GET", "/Users");
			expect(reply.status).toBe(500);
			expect(reply.body).toEqual({
				ResponseStatus: { ErrorCode: "InternalError", Message: "An internal error occurred", Errors: [] },
			});
			expect(reply.text).not.toMatch(/EACCES|\/srv|users\.db|node_modules|at /);
		} finally {
			await plaza.stop();
		}
	});

	test("development mode adds the StackTrace", async () => {
		const plaza = await startPlaza({ services: ["users"], development: true });
		try {
			failingStore(plaza);
			const reply = await plaza.admin<ErrorBody>("GET", "/Users");
			expect(reply.status).toBe(500);
			expect(reply.body.ResponseStatus.StackTrace).toContain("EACCES");
		} finally {
			await plaza.stop();
		}
	});

	test("a stopped service answers 503 ServiceUnavailable, not 404", async () => {
		const plaza = await startPlaza({ services: ["users"] });
		try {
			await plaza.broker.destroyService(plaza.broker.getLocalService("users"));
			const reply = await plaza.admin<ErrorBody>("GET", "/Users");
			expect(reply.status).toBe(503);
			expect(reply.body.ResponseStatus.ErrorCode).toBe("ServiceUnavailable");
		} finally {
			await plaza.stop();
		}
	});
});
