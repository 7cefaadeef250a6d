import { VenuesRepository } from "../services/venues/venues.repository";
import { venuesMigrations } from "../services/venues/venues.schema";
import { newGuid } from "../shared/wire/guid";
import { engines, onEngine } from "./support/engines";

describe.each(engines)("the venues repository on %s", (_name, open) => {
	const under = onEngine(open, venuesMigrations, "venues", db => new VenuesRepository(db));

	test("a venue and its owner as first member; a member is one row however often added at once", async () => {
		const owner = newGuid();
		const venue = await under.repo.create({ Id: newGuid(), Name: "Hall", OwnerId: owner, CreatedTime: 1000 });
		expect(await under.repo.find(venue.Id)).toEqual(venue);
		const user = newGuid();
		const added = await Promise.all(Array.from({ length: 10 }, () => under.repo.addMember(venue.Id, user, undefined, 2000)));
		expect(added.filter(Boolean)).toEqual([{ VenueId: venue.Id, UserId: user, CreatedTime: 2000 }]);
		expect((await under.repo.members(venue.Id, { Offset: 0, Limit: 10 })).map(m => m.UserId)).toEqual([owner, user]);
	});

	test("pages by offset and by cursor agree; an unknown cursor is a 400 on AfterId", async () => {
		const venue = await under.repo.create({ Id: newGuid(), Name: "Big", OwnerId: newGuid(), CreatedTime: 1 });
		for (let i = 0; i < 25; i++) await under.repo.addMember(venue.Id, newGuid(), undefined, 10 + (i % 5));
		const all = await under.repo.members(venue.Id, { Offset: 0, Limit: 100 });
		expect(all).toHaveLength(26);
		const second = await under.repo.members(venue.Id, { Offset: 10, Limit: 10 });
		const byCursor = await under.repo.members(venue.Id, { Offset: 0, Limit: 10, AfterId: all[9].UserId });
		expect(byCursor).toEqual(second);
		await expect(under.repo.members(venue.Id, { Offset: 0, Limit: 10, AfterId: newGuid() })).rejects.toMatchObject({ code: 400 });
	});
});
