import { Context, ServiceBroker } from "moleculer";
import { venuesService } from "../../services/venues/venues.service";
import { defaultConfig } from "../../shared/config";
import { Caller } from "../../shared/caller";
import { Profile } from "../../shared/profiles";

/**
 * The unit layer: a service's actions called on a bare broker (no gateway, no HTTP, no other
 * service but a stand-in for the one it asks for names), on the in-memory store. Each test takes
 * milliseconds; the API suites check the same operations through the gateway.
 */
const ann = "a".repeat(32);
const bob = "b".repeat(32);
const nobody = "f".repeat(32);
const profiles: Profile[] = [
	{ Id: ann, FirstName: "Ann", LastName: "Lee" },
	{ Id: bob, FirstName: "Bob", LastName: "Ray" },
];

/** The options of a call made by this user, as the gateway would make it. */
const as = (userId: string) => ({ meta: { user: { userId, roles: [] } satisfies Caller } });

/** A call's failure, as { code, type } (the status and ErrorCode the gateway answers with). */
const failureOf = (call: Promise<unknown>) =>
	call.then(
		() => undefined,
		(err: { code?: number; type?: string }) => ({ code: err.code, type: err.type }),
	);

describe("venues actions on a bare broker", () => {
	const broker = new ServiceBroker({ logger: false });
	broker.createService(venuesService(defaultConfig()));
	// The users service's one action venues calls, answered from the table above.
	broker.createService({
		name: "users",
		actions: { profiles: (ctx: Context<{ ids: string[] }>) => profiles.filter(p => ctx.params.ids.includes(p.Id)) },
	});
	beforeAll(() => broker.start());
	afterAll(() => broker.stop());

	const createVenue = (Name: string) =>
		broker.call<Record<string, unknown>, { OwnerId: string; Name: string }>(
			"venues.create",
			{ OwnerId: ann, Name },
			as(ann),
		);

	test("create stores a venue for its owner; find returns it", async () => {
		const venue = await createVenue("Hall");
		expect(venue).toMatchObject({ Id: expect.stringMatching(/^[0-9a-f]{32}$/), Name: "Hall", OwnerId: ann });
		expect(await broker.call("venues.find", { Id: venue.Id })).toEqual(venue);
	});

	test("an unknown owner or venue is NotFound", async () => {
		expect(await failureOf(broker.call("venues.create", { OwnerId: nobody, Name: "Nowhere" }, as(nobody)))).toEqual({
			code: 404,
			type: "NotFound",
		});
		expect(await failureOf(broker.call("venues.find", { Id: nobody }))).toEqual({ code: 404, type: "NotFound" });
	});

	test("only the owner adds members; a member comes with the names; twice is AlreadyExists", async () => {
		const venue = await createVenue("Club");
		expect(await failureOf(broker.call("venues.addMember", { VenueId: venue.Id, UserId: bob }, as(bob)))).toEqual({
			code: 403,
			type: "Forbidden",
		});
		const member = await broker.call("venues.addMember", { VenueId: venue.Id, UserId: bob, RoleId: "host" }, as(ann));
		expect(member).toEqual({
			VenueId: venue.Id,
			OwnerId: ann,
			UserId: bob,
			VenueName: "Club",
			MemberFirstName: "Bob",
			MemberLastName: "Ray",
			RoleId: "host",
		});
		expect(await failureOf(broker.call("venues.addMember", { VenueId: venue.Id, UserId: bob }, as(ann)))).toEqual({
			code: 409,
			type: "AlreadyExists",
		});
		expect(await broker.call("venues.isMember", { venueId: venue.Id, userId: bob })).toBe(true);
	});

	test("an empty RoleId takes the role away; a member's venues are listed for them", async () => {
		const venue = await createVenue("Studio");
		await broker.call("venues.addMember", { VenueId: venue.Id, UserId: bob, RoleId: "guest" }, as(ann));
		expect(
			await broker.call("venues.updateMember", { VenueId: venue.Id, UserId: bob, RoleId: "" }, as(ann)),
		).toMatchObject({ UserId: bob, RoleId: undefined });
		// A page as the gateway fills it in from the catalogue's defaults.
		const listed = await broker.call<Array<Record<string, unknown>>, { UserId: string; Offset: number; Limit: number }>(
			"venues.ofUser",
			{ UserId: bob, Offset: 0, Limit: 100 },
		);
		expect(listed.map(v => v.Name)).toContain("Studio");
	});

	test("forgetUser ends every membership of a user, once; the venues they own stay, with their members", async () => {
		const owned = await createVenue("Kept");
		await broker.call("venues.addMember", { VenueId: owned.Id, UserId: bob }, as(ann));
		const venuesOfAnn = await broker.call<unknown[], { UserId: string; Offset: number; Limit: number }>(
			"venues.ofUser",
			{ UserId: ann, Offset: 0, Limit: 100 },
		);
		// The caller the internal-callers middleware checks, where a broker installs it.
		const forget = () =>
			broker.call<number, { userId: string }>("venues.forgetUser", { userId: ann }, { caller: "users" });
		expect(await forget()).toBe(venuesOfAnn.length);
		expect(await broker.call("venues.isMember", { venueId: owned.Id, userId: ann })).toBe(false);
		expect(await broker.call("venues.isMember", { venueId: owned.Id, userId: bob })).toBe(true);
		expect(await broker.call("venues.find", { Id: owned.Id })).toEqual(owned);
		expect(await forget()).toBe(0);
	});
});
