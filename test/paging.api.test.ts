import { ErrorBody, startPlaza, TestPlaza, WireRecord } from "./support/plaza";

describe("paging of AllUsers", () => {
	let plaza: TestPlaza;
	const total = 320;
	let created: string[] = [];

	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"] });
		// Many users share one CreatedTime, so the Id tie-breaker is what keeps the order stable.
		const times = ["2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", "2024-01-03T00:00:00Z"];
		for (let i = 0; i < total; i += 20) {
			const batch = await Promise.all(
				Array.from({ length: 20 }, (_, j) =>
					plaza.admin("POST", "/Users", { FirstName: `P${i + j}`, LastName: "Paged", CreatedTime: times[(i + j) % 3] }),
				),
			);
			created = created.concat(batch.map(r => r.body.Id));
		}
	});
	afterAll(() => plaza.stop());

	test("defaults are Offset 0 and Limit 50", async () => {
		const implicit = await plaza.admin<WireRecord[]>("GET", "/Users");
		const explicit = await plaza.admin<WireRecord[]>("GET", "/Users?Offset=0&Limit=50");
		expect(implicit.status).toBe(200);
		expect(implicit.body).toHaveLength(50);
		expect(implicit.text).toBe(explicit.text);
	});

	test.each([50, 7, 1000])("pages of %i cover every user exactly once, oldest first", async limit => {
		const seen: WireRecord[] = [];
		for (let offset = 0; ; offset += limit) {
			const page = await plaza.admin<WireRecord[]>("GET", `/Users?Offset=${offset}&Limit=${limit}`);
			expect(page.status).toBe(200);
			seen.push(...page.body);
			if (page.body.length < limit) break;
		}
		const ids = seen.map(u => u.Id);
		expect(ids).toHaveLength(total);
		expect(new Set(ids)).toEqual(new Set(created));
		const times = seen.map(u => Number(/\d+/.exec(String(u.CreatedTime))?.[0]));
		expect(times).toEqual([...times].sort((a, b) => a - b));
	});

	test("Limit 0 is an empty page", async () => {
		const reply = await plaza.admin<WireRecord[]>("GET", "/Users?Limit=0");
		expect(reply.status).toBe(200);
		expect(reply.text).toBe("[]");
	});

	test.each([
		["Limit=1001", "Limit", "LessThanOrEqual"],
		["Offset=-1", "Offset", "GreaterThanOrEqual"],
		["Limit=-5", "Limit", "GreaterThanOrEqual"],
		["Limit=ten", "Limit", "InvalidValue"],
		["Offset=1.5", "Offset", "InvalidValue"],
	])("%s is a 400 field error on %s", async (query, field, code) => {
		const reply = await plaza.admin<ErrorBody>("GET", `/Users?${query}`);
		expect(reply.status).toBe(400);
		expect(reply.body.ResponseStatus).toMatchObject({
			ErrorCode: code,
			Errors: [expect.objectContaining({ ErrorCode: code, FieldName: field })],
		});
	});
});
