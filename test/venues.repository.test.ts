import { VenuesRepository } from "../services/venues/venues.repository";
import { venuesMigrations } from "../services/venues/venues.schema";
import { MongoVenuesRepository, venuesMongoMigrations } from "../services/venues/venues.mongo";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

describe.each(storeEngines)("the venues repository on %s", engine => {
	const under = onStore<RepositoryContract<VenuesRepository>>(engine, {
		domain: "venues",
		sql: { migrations: venuesMigrations, create: db => new VenuesRepository(db) },
		mongo: { migrations: venuesMongoMigrations, create: store => new MongoVenuesRepository(store) },
	});

	test("a venue and its owner as first member; a member is one row however often added at once", async () => {
		const owner = newGuid();
		const venue = await under.repo.create({ Id: newGuid(), Name: "Hall", OwnerId: owner, CreatedTime: 1000 });
		expect(await under.repo.find(venue.Id)).toEqual(venue);
		const user = newGuid();
		const added = await Promise.all(
			Array.from({ length: 10 }, () => under.repo.addMember(venue.Id, user, undefined, 2000)),
		);
		expect(added.filter(Boolean)).toEqual([{ VenueId: venue.Id, UserId: user, CreatedTime: 2000 }]);
		expect((await under.repo.members(venue.Id, { Offset: 0, Limit: 10 })).map(m => m.UserId)).toEqual([owner, user]);
		expect(await under.count("venue_members", { venue_id: venue.Id, user_id: user })).toBe(1);
	});

	test("pages by offset and by cursor agree; an unknown cursor is a 400 on AfterId", async () => {
		const venue = await under.repo.create({ Id: newGuid(), Name: "Big", OwnerId: newGuid(), CreatedTime: 1 });
		for (let i = 0; i < 25; i++) await under.repo.addMember(venue.Id, newGuid(), undefined, 10 + (i % 5));
		const all = await under.repo.members(venue.Id, { Offset: 0, Limit: 100 });
		expect(all).toHaveLength(26);
		const second = await under.repo.members(venue.Id, { Offset: 10, Limit: 10 });
		const byCursor = await under.repo.members(venue.Id, { Offset: 0, Limit: 10, AfterId: all[9].UserId });
		expect(byCursor).toEqual(second);
		await expect(under.repo.members(venue.Id, { Offset: 0, Limit: 10, AfterId: newGuid() })).rejects.toMatchObject({
			code: 400,
		});
	});

	test("a member's role is set and taken away; a removed member is no member", async () => {
		const venue = await under.repo.create({ Id: newGuid(), Name: "Club", OwnerId: newGuid(), CreatedTime: 1 });
		const user = newGuid();
		expect(await under.repo.addMember(venue.Id, user, "Host", 5)).toEqual({
			VenueId: venue.Id,
			UserId: user,
			RoleId: "Host",
			CreatedTime: 5,
		});
		expect(await under.repo.setRole(venue.Id, user, "Guest", 6)).toEqual({
			VenueId: venue.Id,
			UserId: user,
			RoleId: "Guest",
			CreatedTime: 5,
		});
		const cleared = await under.repo.setRole(venue.Id, user, undefined, 7);
		expect(cleared).toEqual({ VenueId: venue.Id, UserId: user, CreatedTime: 5 });
		expect(cleared).not.toHaveProperty("RoleId");
		expect(await under.repo.setRole(venue.Id, newGuid(), "Host", 8)).toBeUndefined();
		expect(await under.repo.isMember(venue.Id, user)).toBe(true);
		expect(await under.repo.isMember(newGuid(), user)).toBe(false);
		expect(await under.repo.removeMember(venue.Id, user)).toBe(true);
		expect(await under.repo.removeMember(venue.Id, user)).toBe(false);
		expect(await under.repo.isMember(venue.Id, user)).toBe(false);
	});

	test("a user's venues in the order joined, by offset and by cursor; a venue they are not in is a 400 on AfterId", async () => {
		const user = newGuid();
		const venues = [];
		for (let i = 0; i < 7; i++) {
			const venue = await under.repo.create({ Id: newGuid(), Name: `V${i}`, OwnerId: newGuid(), CreatedTime: i });
			await under.repo.addMember(venue.Id, user, undefined, 100 + (i % 3));
			venues.push(venue);
		}
		const all = await under.repo.venuesOf(user, { Offset: 0, Limit: 100 });
		expect(all).toHaveLength(7);
		expect(all.map(v => v.Id)).toEqual(
			[...venues].sort((a, b) => (a.CreatedTime % 3) - (b.CreatedTime % 3) || (a.Id < b.Id ? -1 : 1)).map(v => v.Id),
		);
		expect(all[0]).toEqual(venues.find(v => v.Id === all[0].Id));
		expect(await under.repo.venuesOf(user, { Offset: 0, Limit: 3, AfterId: all[2].Id })).toEqual(
			await under.repo.venuesOf(user, { Offset: 3, Limit: 3 }),
		);
		expect(await under.repo.venuesOf(user, { Offset: 1, Limit: 3, AfterId: all[1].Id })).toEqual(all.slice(3, 6));
		expect(await under.repo.venuesOf(user, { Offset: 0, Limit: 0 })).toEqual([]);
		await expect(under.repo.venuesOf(newGuid(), { Offset: 0, Limit: 3, AfterId: all[0].Id })).rejects.toMatchObject({
			code: 400,
		});
	});

	test("a membership of a venue that is not there is passed over in the user's venues, before the page is cut", async () => {
		const user = newGuid();
		const first = await under.repo.create({ Id: newGuid(), Name: "First", OwnerId: user, CreatedTime: 10 });
		await under.repo.addMember(newGuid(), user, undefined, 11);
		const third = await under.repo.create({ Id: newGuid(), Name: "Third", OwnerId: user, CreatedTime: 12 });
		expect(await under.repo.venuesOf(user, { Offset: 0, Limit: 10 })).toEqual([first, third]);
		expect(await under.repo.venuesOf(user, { Offset: 1, Limit: 1 })).toEqual([third]);
	});

	test("forgetUser ends every membership of a user once; venues they own stay, with their other members", async () => {
		const [user, other] = [newGuid(), newGuid()];
		const owned = await under.repo.create({ Id: newGuid(), Name: "Owned", OwnerId: user, CreatedTime: 1 });
		await under.repo.addMember(owned.Id, other, "Host", 2);
		const joined = await under.repo.create({ Id: newGuid(), Name: "Joined", OwnerId: other, CreatedTime: 3 });
		await under.repo.addMember(joined.Id, user, "Guest", 4);
		await under.repo.addMember(newGuid(), user, undefined, 5);

		const removed = await Promise.all(Array.from({ length: 3 }, () => under.repo.forgetUser(user)));
		expect(removed.reduce((sum, n) => sum + n, 0)).toBe(3);
		expect(await under.count("venue_members", { user_id: user })).toBe(0);
		expect(await under.repo.venuesOf(user, { Offset: 0, Limit: 10 })).toEqual([]);
		expect(await under.repo.find(owned.Id)).toEqual(owned);
		expect((await under.repo.members(owned.Id, { Offset: 0, Limit: 10 })).map(m => m.UserId)).toEqual([other]);
		expect(await under.repo.isMember(joined.Id, other)).toBe(true);
		expect(await under.repo.forgetUser(user)).toBe(0);
	});

	test("venues are found by ids; an imported venue is written once", async () => {
		const a = await under.repo.create({ Id: newGuid(), Name: "A", OwnerId: newGuid(), CreatedTime: 1 });
		const imported = { Id: newGuid(), Name: "Former", OwnerId: newGuid(), CreatedTime: 2 };
		await under.repo.importVenue(imported);
		await under.repo.importVenue({ ...imported, Name: "Former again" });
		const found = await under.repo.findMany([a.Id, imported.Id, newGuid()]);
		expect(found.sort((x, y) => x.CreatedTime - y.CreatedTime)).toEqual([a, imported]);
		expect(await under.repo.findMany([])).toEqual([]);
		expect(await under.repo.find(newGuid())).toBeUndefined();
		expect(await under.count("venues", { id: imported.Id })).toBe(1);
	});
});
