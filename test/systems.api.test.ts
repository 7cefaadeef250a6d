import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";

type Records = WireRecord[];

describe("systems, work items and service maps", () => {
	let plaza: TestPlaza;
	let user: Session;
	beforeAll(async () => {
		plaza = await startPlaza();
		user = await plaza.signUp();
	});
	afterAll(() => plaza.stop());

	test("CreateSystem is for administrators and numbers systems 1, 2, 3 … even when created at once", async () => {
		expect((await user.http<ErrorBody>("POST", "/Systems", { Name: "Jira" })).status).toBe(403);
		const replies = await Promise.all(
			Array.from({ length: 5 }, (_, i) =>
				plaza.admin("POST", i % 2 ? "/Systems" : "/json/reply/CreateSystem", {
					Name: `System ${i}`,
					Url: "https://tracker.example.org",
				}),
			),
		);
		expect(replies.map(r => r.status)).toEqual([200, 200, 200, 200, 200]);
		expect(replies.map(r => r.body.Id).sort()).toEqual([1, 2, 3, 4, 5]);
		expect(replies[0].text).toMatch(/^\{"Id":\d,"Name":"System 0",/);
		const all = await user.http<Records>("GET", "/Systems");
		expect(all.body.map(s => s.Id)).toEqual([1, 2, 3, 4, 5]);
		expect((await user.http("GET", "/Systems/3")).body.Id).toBe(3);
		expect((await user.http("GET", "/Systems/99")).status).toBe(404);
		expect((await user.http<ErrorBody>("GET", "/Systems/abc")).status).toBe(400);
	});

	test("CreateWorkItem: SystemId must exist; IsMappingRequired makes its ServiceMap; a mapped reference twice is 409 and leaves nothing", async () => {
		const plain = await user.http("POST", "/WorkItems", {
			ShortDescription: "Fix the door",
			LongDescription: "It squeaks",
		});
		expect(plain.status).toBe(200);
		expect(plain.body).toEqual({
			Id: expect.stringMatching(/^[0-9a-f]{32}$/),
			ShortDescription: "Fix the door",
			LongDescription: "It squeaks",
		});
		expect((await user.http("POST", "/WorkItems", { ShortDescription: "x", SystemId: 99 })).status).toBe(404);
		expect(
			(
				await user.http<ErrorBody>("POST", "/WorkItems", {
					ShortDescription: "x",
					IsMappingRequired: true,
					SystemId: 1,
				})
			).body.ResponseStatus.Errors[0].FieldName,
		).toBe("ReferenceId");

		const mapped = await user.http("POST", "/json/reply/CreateWorkItem", {
			ShortDescription: "Ticket",
			ReferenceId: "PROJ-1",
			IsMappingRequired: true,
			SystemId: 1,
		});
		expect(mapped.status).toBe(200);
		expect(mapped.body.ReferenceId).toBe("PROJ-1");
		const maps = await user.http<Records>("GET", "/ServiceMaps?SystemId=1&ReferenceId=PROJ-1");
		expect(maps.body).toEqual([
			{
				Id: expect.any(String),
				SystemId: 1,
				ReferenceId: "PROJ-1",
				WorkItemId: mapped.body.Id,
				CreatedTime: expect.any(String),
			},
		]);

		const items = await plaza.count("systems", "work_items");
		const again = await user.http<ErrorBody>("POST", "/WorkItems", {
			ShortDescription: "Dup",
			ReferenceId: "PROJ-1",
			IsMappingRequired: true,
			SystemId: 1,
		});
		expect(again.status).toBe(409);
		expect(again.body.ResponseStatus.Errors[0].FieldName).toBe("ReferenceId");
		expect(await plaza.count("systems", "work_items")).toBe(items);
		expect((await user.http("GET", `/WorkItems/${mapped.body.Id}`)).body).toEqual(mapped.body);
	});

	test("AllSystems and ServiceMapsDto follow an AfterId cursor (an integer for systems); an unknown one is a 400 on AfterId", async () => {
		expect((await user.http<Records>("GET", "/Systems?AfterId=2&Limit=2")).body.map(s => s.Id)).toEqual([3, 4]);
		expect((await user.http<Records>("POST", "/json/reply/AllSystems", { AfterId: 4 })).body.map(s => s.Id)).toEqual([
			5,
		]);
		expect((await user.http<ErrorBody>("GET", "/Systems?AfterId=99")).body.ResponseStatus.Errors[0].FieldName).toBe(
			"AfterId",
		);
		const item = (await user.http("POST", "/WorkItems", { ShortDescription: "Paged" })).body;
		for (const ReferenceId of ["P-1", "P-2", "P-3"])
			expect((await user.http("POST", "/ServiceMaps", { SystemId: 4, ReferenceId, WorkItemId: item.Id })).status).toBe(
				200,
			);
		// The list's own order (maps made in one millisecond are ordered by Id, not by when they were made).
		const listed = (await user.http<Records>("GET", "/ServiceMaps?SystemId=4")).body.map(m => m.Id);
		expect(listed).toHaveLength(3);
		expect(
			(await user.http<Records>("GET", `/ServiceMaps?SystemId=4&AfterId=${listed[0]}`)).body.map(m => m.Id),
		).toEqual(listed.slice(1));
		expect((await user.http("GET", "/ServiceMaps?AfterId=0f8fad5bd9cb469fa16570867728950e")).status).toBe(400);
	});

	test("CreateServiceMap and ServiceMapsDto by REST and generic routes", async () => {
		const item = (await user.http("POST", "/WorkItems", { ShortDescription: "Mapped later" })).body;
		const map = await user.http("POST", "/ServiceMaps", { SystemId: 2, ReferenceId: "EXT-7", WorkItemId: item.Id });
		expect(map.status).toBe(200);
		expect(
			(
				await user.http("POST", "/json/reply/CreateServiceMap", {
					SystemId: 2,
					ReferenceId: "EXT-7",
					WorkItemId: item.Id,
				})
			).status,
		).toBe(409);
		expect(
			(
				await user.http("POST", "/ServiceMaps", {
					SystemId: 2,
					ReferenceId: "EXT-8",
					WorkItemId: "0f8fad5bd9cb469fa16570867728950e",
				})
			).status,
		).toBe(404);
		const listed = await user.http<Records>("POST", "/json/reply/ServiceMapsDto", { SystemId: 2 });
		expect(listed.body.map(m => m.Id)).toEqual([map.body.Id]);
	});
});

describe("devices", () => {
	let plaza: TestPlaza;
	let ann: Session;
	let bob: Session;
	beforeAll(async () => {
		plaza = await startPlaza();
		[ann, bob] = await Promise.all([plaza.signUp(), plaza.signUp()]);
	});
	afterAll(() => plaza.stop());

	test("the same (UserId, DeviceToken) again returns the existing record, even at once", async () => {
		const token = "apns-" + "a".repeat(100);
		const replies = await Promise.all(
			Array.from({ length: 10 }, () =>
				ann.http("POST", `/Users/${ann.userId}/Devices`, { DeviceToken: token, Platform: "iOS", Name: "Phone" }),
			),
		);
		expect(replies.every(r => r.status === 200)).toBe(true);
		expect(new Set(replies.map(r => r.body.Id)).size).toBe(1);
		expect(replies[0].body).toEqual({
			Id: expect.any(String),
			UserId: ann.userId,
			DeviceToken: token,
			Platform: "iOS",
			Name: "Phone",
			CreatedTime: expect.any(String),
		});
		const generic = await ann.http("POST", "/json/reply/CreateUserDevice", { UserId: ann.userId, DeviceToken: token });
		expect(generic.body.Id).toBe(replies[0].body.Id);
		expect((await ann.http<Records>("GET", `/Users/${ann.userId}/Devices`)).body).toHaveLength(1);
	});

	test("devices are one's own: registering, listing or deleting another's is 403", async () => {
		expect((await bob.http("POST", `/Users/${ann.userId}/Devices`, { DeviceToken: "x" })).status).toBe(403);
		expect((await bob.http("GET", `/Users/${ann.userId}/Devices`)).status).toBe(403);
		const [device] = (await ann.http<Records>("GET", `/Users/${ann.userId}/Devices`)).body;
		expect((await bob.http("DELETE", `/Users/${ann.userId}/Devices/${device.Id}`)).status).toBe(403);
		expect((await bob.http("DELETE", `/Users/${bob.userId}/Devices/${device.Id}`)).status).toBe(404);
		expect((await ann.http("DELETE", `/Users/${ann.userId}/Devices/${device.Id}`)).status).toBe(200);
		expect((await ann.http<Records>("GET", `/Users/${ann.userId}/Devices`)).body).toEqual([]);
	});
});
