import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf, isAdmin } from "../../shared/caller";
import { profilesOf } from "../../shared/profiles";
import { VenueMemberRow, VenueRow, VenuesRepository } from "./venues.repository";
import { venuesMigrations } from "./venues.schema";
import { venuesLegacy } from "./venues.legacy";
import { MongoVenuesRepository, venuesMongoMigrations } from "./venues.mongo";
import { typedService } from "../../shared/implement";
import { venuesOperations } from "../../shared/catalogue";
import { changed } from "../../shared/changes/changes";

interface VenuesMethods {
	venue(id: string): Promise<VenueRow>;
	ownedVenue(ctx: Context, id: string): Promise<VenueRow>;
	memberRecords(
		ctx: Context,
		venue: VenueRow | undefined,
		members: VenueMemberRow[],
	): Promise<Record<string, unknown>[]>;
}

const { implement, define } = typedService<VenuesMethods, WithRepository<RepositoryContract<VenuesRepository>>>();

/** Venues and their members (with roles). */
export function venuesService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "venues",
		mixins: [
			repositoryMixin<RepositoryContract<VenuesRepository>>(config.store, {
				domain: "venues",
				migrations: venuesMigrations,
				create: db => new VenuesRepository(db),
				mongo: { migrations: venuesMongoMigrations, create: store => new MongoVenuesRepository(store) },
				legacy: venuesLegacy,
			}),
		],

		actions: {
			...implement(venuesOperations.CreateVenue, async function (ctx) {
				const { OwnerId, Name } = ctx.params;
				if (!(await profilesOf(ctx, [OwnerId])).has(OwnerId)) throw failures.notFound(`User ${OwnerId}`);
				const venue = await this.repo.create({ Id: newGuid(), Name, OwnerId, CreatedTime: Date.now() });
				await changed(ctx, { domain: "venues" });
				return venue;
			}),

			...implement(venuesOperations.FindVenue, async function (ctx) {
				return this.venue(ctx.params.Id);
			}),

			...implement(venuesOperations.CreateVenueMember, async function (ctx) {
				const venue = await this.ownedVenue(ctx, ctx.params.VenueId);
				if (!(await profilesOf(ctx, [ctx.params.UserId])).has(ctx.params.UserId))
					throw failures.notFound(`User ${ctx.params.UserId}`);
				const member = await this.repo.addMember(venue.Id, ctx.params.UserId, ctx.params.RoleId, Date.now());
				if (!member) throw failures.alreadyExists("UserId", "The user is a member already");
				await changed(ctx, { domain: "venues" });
				return (await this.memberRecords(ctx, venue, [member]))[0];
			}),

			...implement(venuesOperations.UpdateVenueMember, async function (ctx) {
				const venue = await this.ownedVenue(ctx, ctx.params.VenueId);
				// An empty RoleId takes the role away.
				const member = await this.repo.setRole(venue.Id, ctx.params.UserId, ctx.params.RoleId || undefined, Date.now());
				if (!member) throw failures.notFound(`Member ${ctx.params.UserId} of venue ${venue.Id}`);
				await changed(ctx, { domain: "venues" });
				return (await this.memberRecords(ctx, venue, [member]))[0];
			}),

			...implement(venuesOperations.VenueMembers, async function (ctx) {
				const venue = await this.venue(ctx.params.VenueId);
				return this.memberRecords(ctx, venue, await this.repo.members(venue.Id, ctx.params));
			}),

			...implement(venuesOperations.UserVenues, async function (ctx) {
				return this.repo.venuesOf(ctx.params.UserId, ctx.params);
			}),

			/** Internal: venues by id, as records (to check references such as DefaultVenueId). */
			byIds: {
				visibility: "public",
				callers: ["users", "reservations"],
				async handler(ctx: Context<{ ids: string[] }>) {
					return this.repo.findMany(ctx.params.ids);
				},
			},

			/** Internal: whether a user is a member of a venue (a post's ContextId may name it). */
			isMember: {
				visibility: "public",
				callers: ["posts"],
				async handler(ctx: Context<{ venueId: string; userId: string }>) {
					return this.repo.isMember(ctx.params.venueId, ctx.params.userId);
				},
			},

			/** Internal: makes a user a member, as an accepted invitation does; already being one is fine. */
			join: {
				visibility: "public",
				callers: ["reservations"],
				async handler(ctx: Context<{ venueId: string; userId: string }>) {
					await this.venue(ctx.params.venueId);
					const joined = !!(await this.repo.addMember(ctx.params.venueId, ctx.params.userId, undefined, Date.now()));
					await changed(ctx, { domain: "venues" });
					return joined;
				},
			},

			/** Internal: undoes join, when what it was done for failed. */
			leave: {
				visibility: "public",
				callers: ["reservations"],
				async handler(ctx: Context<{ venueId: string; userId: string }>) {
					const left = await this.repo.removeMember(ctx.params.venueId, ctx.params.userId);
					await changed(ctx, { domain: "venues" });
					return left;
				},
			},

			/**
			 * Internal: ends every venue membership of a user (deleting an account; the venues they own stay). Idempotent;
			 * the number of memberships removed.
			 */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					const removed = await this.repo.forgetUser(ctx.params.userId);
					await changed(ctx, { domain: "venues" });
					return removed;
				},
			},
		},

		methods: {
			async venue(id: string) {
				const venue = await this.repo.find(id);
				if (!venue) throw failures.notFound(`Venue ${id}`);
				return venue;
			},

			async ownedVenue(ctx: Context, id: string) {
				const venue = await this.venue(id);
				const caller = callerOf(ctx);
				if (!isAdmin(caller) && caller?.userId !== venue.OwnerId)
					throw failures.forbidden("Only the venue's owner manages its members");
				return venue;
			},

			/** VenueMember records (SPEC.md §2.12): the venue's name and owner, the member's names. */
			async memberRecords(ctx: Context, venue: VenueRow | undefined, members: VenueMemberRow[]) {
				const users = await profilesOf(
					ctx,
					members.map(m => m.UserId),
				);
				return members.map(m => {
					const user = users.get(m.UserId);
					return {
						VenueId: m.VenueId,
						OwnerId: venue?.OwnerId,
						UserId: m.UserId,
						VenueName: venue?.Name,
						MemberFirstName: user?.FirstName,
						MemberLastName: user?.LastName,
						RoleId: m.RoleId,
					};
				});
			},
		},
	});
}
