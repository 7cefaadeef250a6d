import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";

type Records = WireRecord[];
const role = "5a0e2d4c8b7f4e1a9c3d2b1a0f9e8d7c";

describe("venues and their members", () => {
	let plaza: TestPlaza;
	let owner: Session;
	let member: Session;
	let stranger: Session;
	let venue: WireRecord;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["venues"] });
		[owner, member, stranger] = await Promise.all([
			plaza.signUp({ FirstName: "Vera", LastName: "Owner" }),
			plaza.signUp({ FirstName: "Max", LastName: "Member" }),
			plaza.signUp(),
		]);
		venue = (await owner.http("POST", "/Venues", { OwnerId: owner.userId, Name: "Town Hall" })).body;
	});
	afterAll(() => plaza.stop());

	test("CreateVenue by REST and generic; the owner is its first member; FindVenue both ways", async () => {
		expect(venue).toEqual({
			Id: expect.stringMatching(/^[0-9a-f]{32}$/),
			Name: "Town Hall",
			OwnerId: owner.userId,
			CreatedTime: expect.any(String),
		});
		const generic = await owner.http("POST", "/json/reply/CreateVenue", { OwnerId: owner.userId, Name: "Library" });
		expect(generic.status).toBe(200);
		expect((await stranger.http("GET", `/Venues/${venue.Id}`)).body).toEqual(venue);
		expect((await stranger.http("POST", "/json/reply/FindVenue", { Id: venue.Id })).body).toEqual(venue);
		const members = await stranger.http<Records>("GET", `/Venues/${venue.Id}/Members`);
		expect(members.body).toEqual([
			{
				VenueId: venue.Id,
				OwnerId: owner.userId,
				UserId: owner.userId,
				VenueName: "Town Hall",
				MemberFirstName: "Vera",
				MemberLastName: "Owner",
			},
		]);
		expect((await stranger.http<ErrorBody>("POST", "/Venues", { OwnerId: owner.userId, Name: "Forged" })).status).toBe(
			403,
		);
	});

	test("the owner adds a member with a role (VenueMember with names filled in), then changes the role", async () => {
		const added = await owner.http("POST", `/Venues/${venue.Id}/Members`, { UserId: member.userId, RoleId: role });
		expect(added.status).toBe(200);
		expect(added.body).toEqual({
			VenueId: venue.Id,
			OwnerId: owner.userId,
			UserId: member.userId,
			VenueName: "Town Hall",
			MemberFirstName: "Max",
			MemberLastName: "Member",
			RoleId: role,
		});
		expect((await owner.http("POST", `/Venues/${venue.Id}/Members`, { UserId: member.userId })).status).toBe(409);

		const newRole = "0f8fad5bd9cb469fa16570867728950e";
		const updated = await owner.http("PUT", `/Venues/${venue.Id}/Members/${member.userId}`, { RoleId: newRole });
		expect(updated.status).toBe(200);
		expect(updated.body).toMatchObject({ UserId: member.userId, RoleId: newRole, VenueName: "Town Hall" });
		const generic = await owner.http("POST", "/json/reply/UpdateVenueMember", {
			VenueId: venue.Id,
			UserId: member.userId,
			RoleId: role,
		});
		expect(generic.body.RoleId).toBe(role);
		expect((await member.http<Records>("GET", `/Users/${member.userId}/Venues`)).body.map(v => v.Id)).toEqual([
			venue.Id,
		]);
	});

	test("only the owner (or an admin) manages members; unknown venues and members are 404", async () => {
		expect(
			(await stranger.http<ErrorBody>("POST", `/Venues/${venue.Id}/Members`, { UserId: stranger.userId })).status,
		).toBe(403);
		expect(
			(await member.http<ErrorBody>("PUT", `/Venues/${venue.Id}/Members/${member.userId}`, { RoleId: role })).status,
		).toBe(403);
		expect((await plaza.admin("PUT", `/Venues/${venue.Id}/Members/${member.userId}`, { RoleId: role })).status).toBe(
			200,
		);
		expect((await owner.http("PUT", `/Venues/${venue.Id}/Members/${stranger.userId}`, { RoleId: role })).status).toBe(
			404,
		);
		expect(
			(await owner.http("POST", "/Venues/0f8fad5bd9cb469fa16570867728950e/Members", { UserId: member.userId })).status,
		).toBe(404);
	});

	test("a user's DefaultVenueId points at a real venue, and connections show it", async () => {
		expect(
			(
				await member.http<ErrorBody>("PUT", `/Users/${member.userId}`, {
					FirstName: "Max",
					LastName: "Member",
					DefaultVenueId: "0f8fad5bd9cb469fa16570867728950e",
				})
			).status,
		).toBe(404);
		const updated = await member.http("PUT", `/Users/${member.userId}`, {
			FirstName: "Max",
			LastName: "Member",
			DefaultVenueId: venue.Id,
		});
		expect(updated.body.DefaultVenueId).toBe(venue.Id);
		const [mine] = (
			await owner.http<Records>("POST", "/Connections", { OwnerId: owner.userId, ConnectToId: member.userId })
		).body;
		expect(mine.UserDefaultVenueId).toBe(venue.Id);
	});
});
