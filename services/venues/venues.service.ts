import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { insertUnlessExists, linkedInOrder, pageOf, toRecord, updateOf } from "../../shared/persistence/documents";
import { Doc } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf, isAdmin } from "../../shared/caller";
import { profilesOf } from "../../shared/profiles";

type Page = { Offset: number; Limit: number };
type VenuesStores = CollectionsMethods<"venues" | "venueMembers">;
type VenuesThis = Service & VenuesStores & VenuesMethods;

interface VenuesMethods {
	venueDoc(id: string): Promise<Doc>;
	ownedVenue(ctx: Context, id: string): Promise<Doc>;
	memberRecords(ctx: Context, venue: Doc | undefined, members: Doc[]): Promise<Record<string, unknown>[]>;
	join(venueId: string, userId: string, roleId?: string): Promise<Doc>;
	memberDoc(venueId: string, userId: string, roleId?: string): Doc;
}

const memberKey = (venueId: string, userId: string) => `${venueId}:${userId}`;

/** Venues and their members (with roles). */
export function venuesService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, VenuesMethods, VenuesStores> = {
		name: "venues",
		mixins: [
			collectionsMixin(config.store, {
				venues: [],
				venueMembers: [{ field: "VenueId" }, { field: "UserId" }, { field: "MemberKey", unique: true, reportAs: "UserId" }],
			}),
		],

		actions: {
			async create(this: VenuesThis, ctx: Context<{ OwnerId: string; Name: string }>) {
				const { OwnerId, Name } = ctx.params;
				if (!(await profilesOf(ctx, [OwnerId])).has(OwnerId)) throw failures.notFound(`User ${OwnerId}`);
				const venue: Doc = { _id: newGuid(), Name, OwnerId, CreatedTime: Date.now() };
				await this.join(venue._id, OwnerId);
				return toRecord(await this.stores.venues.insert(venue));
			},

			async find(this: VenuesThis, ctx: Context<{ Id: string }>) {
				return toRecord(await this.venueDoc(ctx.params.Id));
			},

			async addMember(this: VenuesThis, ctx: Context<{ VenueId: string; UserId: string; RoleId?: string }>) {
				const venue = await this.ownedVenue(ctx, ctx.params.VenueId);
				if (!(await profilesOf(ctx, [ctx.params.UserId])).has(ctx.params.UserId)) throw failures.notFound(`User ${ctx.params.UserId}`);
				const member = await this.join(venue._id, ctx.params.UserId, ctx.params.RoleId);
				return (await this.memberRecords(ctx, venue, [member]))[0];
			},

			async updateMember(this: VenuesThis, ctx: Context<{ VenueId: string; UserId: string; RoleId?: string }>) {
				const venue = await this.ownedVenue(ctx, ctx.params.VenueId);
				const member = await this.stores.venueMembers.findOne({ MemberKey: memberKey(venue._id, ctx.params.UserId) });
				if (!member) throw failures.notFound(`Member ${ctx.params.UserId} of venue ${venue._id}`);
				// An empty RoleId takes the role away.
				const updated = await this.stores.venueMembers.updateById(member._id, updateOf({ RoleId: ctx.params.RoleId ?? "", UpdatedTime: Date.now() }));
				return (await this.memberRecords(ctx, venue, [updated ?? member]))[0];
			},

			async members(this: VenuesThis, ctx: Context<{ VenueId: string } & Page>) {
				const venue = await this.venueDoc(ctx.params.VenueId);
				return this.memberRecords(ctx, venue, await pageOf(this.stores.venueMembers, { VenueId: venue._id }, ctx.params));
			},

			async ofUser(this: VenuesThis, ctx: Context<{ UserId: string } & Page>) {
				const memberships = await pageOf(this.stores.venueMembers, { UserId: ctx.params.UserId }, ctx.params);
				return (await linkedInOrder(this.stores.venues, memberships, "VenueId")).map(toRecord);
			},

			/** Internal: venues by id, as records (to check references such as DefaultVenueId). */
			byIds: {
				visibility: "public",
				async handler(this: VenuesThis, ctx: Context<{ ids: string[] }>) {
					return (await this.stores.venues.findByIds(ctx.params.ids)).map(toRecord);
				},
			},

			/** Internal: makes a user a member, as an accepted invitation does; already being one is fine. */
			join: {
				visibility: "public",
				async handler(this: VenuesThis, ctx: Context<{ venueId: string; userId: string }>) {
					await this.venueDoc(ctx.params.venueId);
					return insertUnlessExists(this.stores.venueMembers, this.memberDoc(ctx.params.venueId, ctx.params.userId));
				},
			},

			/** Internal: undoes join, when what it was done for failed. */
			leave: {
				visibility: "public",
				async handler(this: VenuesThis, ctx: Context<{ venueId: string; userId: string }>) {
					return (await this.stores.venueMembers.removeMany({ MemberKey: memberKey(ctx.params.venueId, ctx.params.userId) })) > 0;
				},
			},
		},

		methods: {
			async venueDoc(this: VenuesThis, id: string) {
				const doc = await this.stores.venues.findById(id);
				if (!doc) throw failures.notFound(`Venue ${id}`);
				return doc;
			},

			async ownedVenue(this: VenuesThis, ctx: Context, id: string) {
				const venue = await this.venueDoc(id);
				const caller = callerOf(ctx);
				if (!isAdmin(caller) && caller?.userId !== venue.OwnerId) throw failures.forbidden("Only the venue's owner manages its members");
				return venue;
			},

			async join(this: VenuesThis, venueId: string, userId: string, roleId?: string) {
				return this.stores.venueMembers.insert(this.memberDoc(venueId, userId, roleId));
			},

			memberDoc(venueId: string, userId: string, roleId?: string): Doc {
				return { _id: newGuid(), VenueId: venueId, UserId: userId, RoleId: roleId, CreatedTime: Date.now(), MemberKey: memberKey(venueId, userId) };
			},

			/** VenueMember records (SPEC.md §2.12): the venue's name and owner, the member's names. */
			async memberRecords(this: VenuesThis, ctx: Context, venue: Doc | undefined, members: Doc[]) {
				const users = await profilesOf(ctx, members.map(m => String(m.UserId)));
				return members.map(m => {
					const user = users.get(String(m.UserId));
					return { VenueId: m.VenueId, OwnerId: venue?.OwnerId, UserId: m.UserId, VenueName: venue?.Name, MemberFirstName: user?.FirstName, MemberLastName: user?.LastName, RoleId: m.RoleId };
				});
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
