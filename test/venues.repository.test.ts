import { VenuesRepository } from "../services/venues/venues.repository";
import { venuesMigrations } from "../services/venues/venues.schema";
import { newGuid } from "../shared/wire/guid";
import { engines, EngineUnderTest } from "./support/engines";

describe.each(engines)("the venues repository on %s", (_name, open) => {
	let engine: EngineUnderTest;
	let repo: VenuesRepository;
	beforeAll(async () => {
		engine = await open(venuesMigrations, "venues");
		repo = new VenuesRepository(engine.db);
	});
	afterAll(() => engine.close());

	test("a venue and its owner as first member; a member is one row however often added at once", async () => {
		const owner = newGuid();
		const venue = await repo.create({ Id: newGuid(), Name: "Hall", OwnerId: owner, CreatedTime: 1000 });
		expect(await repo.find(venue.Id)).toEqual(venue);
		const user = newGuid();
		const added = await Promise.all(Array.from({ length: 10 }, () => repo.addMember(venue.Id, user, undefined, 2000)));
		expect(added.filter(Boolean)).toEqual([{ VenueId: venue.Id, UserId: user, CreatedTime: 2000 }]);
		expect((await repo.members(venue.Id, { Offset: 0, Limit: 10 })).map(m => m.UserId)).toEqual([owner, user]);
	});

	test("pages by offset and by cursor agree; an unknown cursor is a 400 on AfterId", async () => {
		const venue = await repo.create({ Id: newGuid(), Name: "Big", OwnerId: newGuid(), CreatedTime: 1 });
		for (let i = 0; i < 25; i++) await repo.addMember(venue.Id, newGuid(), undefined, 10 + (i % 5));
		const all = await repo.members(venue.Id, { Offset: 0, Limit: 100 });
		expect(all).toHaveLength(26);
		const second = await repo.members(venue.Id, { Offset: 10, Limit: 10 });
		const byCursor = await repo.members(venue.Id, { Offset: 0, Limit: 10, AfterId: all[9].UserId });
		expect(byCursor).toEqual(second);
		await expect(repo.members(venue.Id, { Offset: 0, Limit: 10, AfterId: newGuid() })).rejects.toMatchObject({ code: 400 });
	});
});
