import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { toRecord } from "../../shared/persistence/documents";
import { Doc } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { Caller, callerOf, isAdmin, SessionMeta } from "../../shared/caller";
import { readCall } from "../../shared/calls";

type ReservationsThis = Service & CollectionsMethods<"reservations"> & ReservationsMethods;

interface ReservationsMethods {
	checkOwner(ctx: Context, action: string, id: string, what: string): Promise<void>;
	convert(ctx: Context<ConvertInput, SessionMeta>, reservation: Doc): Promise<Record<string, unknown>>;
}

interface ReservationInput {
	Email: string;
	FirstName?: string;
	LastName?: string;
	VenueId?: string;
	NetworkId?: string;
}

type Membership = { venueId?: string; networkId?: string; userId: string };

interface ConvertInput {
	ReservationId: string;
	UserName: string;
	Password: string;
}

/** Invitations (UserReservations) and their conversion into accounts. */
export function reservationsService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, ReservationsMethods, CollectionsMethods<"reservations">> = {
		name: "reservations",
		mixins: [collectionsMixin(config.store, { reservations: [{ field: "InvitedBy" }] })],

		actions: {
			async create(this: ReservationsThis, ctx: Context<ReservationInput>) {
				// An invitation brings membership: only who may grant it may promise it.
				if (ctx.params.VenueId) await this.checkOwner(ctx, "venues.byIds", ctx.params.VenueId, "Venue");
				if (ctx.params.NetworkId) await this.checkOwner(ctx, "graph.networksByIds", ctx.params.NetworkId, "Network");
				const now = Date.now();
				const doc: Doc = { _id: newGuid(), ...ctx.params, InvitedBy: callerOf(ctx)?.userId, Converted: false, ExpirationDate: now + config.reservationTtlSeconds * 1000, CreatedTime: now };
				return toRecord(await this.stores.reservations.insert(doc));
			},

			async find(this: ReservationsThis, ctx: Context<{ Id: string }>) {
				const doc = await this.stores.reservations.findById(ctx.params.Id);
				const caller = callerOf(ctx);
				if (!doc || (!isAdmin(caller) && doc.InvitedBy !== caller?.userId)) throw failures.notFound(`Reservation ${ctx.params.Id}`);
				return toRecord(doc);
			},

			async convert(this: ReservationsThis, ctx: Context<ConvertInput, SessionMeta>) {
				const reservation = await this.stores.reservations.findById(ctx.params.ReservationId);
				if (!reservation) throw failures.notFound(`Reservation ${ctx.params.ReservationId}`);
				if (reservation.Converted) throw failures.alreadyExists("ReservationId", "The reservation has been converted already");
				if (Number(reservation.ExpirationDate) <= Date.now()) throw failures.field("ReservationId", "InvalidValue", "The reservation has expired");
				// Claim it atomically: of two conversions at once, one finds it unclaimed.
				const claimed = await this.stores.reservations.updateMany({ _id: reservation._id, Converted: false }, { $set: { Converted: true, ConvertedTime: Date.now() } });
				if (claimed === 0) throw failures.alreadyExists("ReservationId", "The reservation has been converted already");
				try {
					return await this.convert(ctx, reservation);
				} catch (err) {
					await this.stores.reservations.updateById(reservation._id, { $set: { Converted: false }, $unset: { ConvertedTime: true } });
					throw err;
				}
			},
		},

		methods: {
			async checkOwner(this: ReservationsThis, ctx: Context, action: string, id: string, what: string) {
				const [found] = await readCall<Array<{ OwnerId?: string }>, { ids: string[] }>(ctx, action, { ids: [id] });
				if (!found) throw failures.notFound(`${what} ${id}`);
				const caller = callerOf(ctx);
				if (!isAdmin(caller) && found.OwnerId !== caller?.userId) throw failures.forbidden(`Only the ${what.toLowerCase()}'s owner invites into it`);
			},

			/**
			 * The account, then its memberships, then its session; when a step fails, the steps before it
			 * are undone, so that a failed conversion leaves nothing behind and can be tried again.
			 */
			async convert(this: ReservationsThis, ctx: Context<ConvertInput, SessionMeta>, reservation: Doc) {
				const venueId = reservation.VenueId as string | undefined;
				const networkId = reservation.NetworkId as string | undefined;
				const account = await ctx.call<{ UserId: string; UserName: string; user: Caller }, Record<string, unknown>>("users.createAccount", {
					UserName: ctx.params.UserName,
					Password: ctx.params.Password,
					Email: reservation.Email,
					FirstName: reservation.FirstName,
					LastName: reservation.LastName,
					DefaultVenueId: venueId,
				});
				const undo: Array<() => Promise<unknown>> = [() => ctx.call("users.removeAccount", { id: account.UserId })];
				try {
					if (venueId && (await ctx.call<boolean, Membership>("venues.join", { venueId, userId: account.UserId }))) undo.push(() => ctx.call("venues.leave", { venueId, userId: account.UserId }));
					if (networkId && (await ctx.call<boolean, Membership>("graph.joinNetwork", { networkId, userId: account.UserId }))) undo.push(() => ctx.call("graph.leaveNetwork", { networkId, userId: account.UserId }));
					const session = await ctx.call<{ SessionId: string }, { user: Caller; persistent: boolean }>("sessions.open", { user: account.user, persistent: false });
					return { UserId: account.UserId, SessionId: session.SessionId, UserName: account.UserName };
				} catch (err) {
					for (const step of undo.reverse()) await step().catch(e => this.logger.error("Undoing a failed conversion failed:", e));
					throw err;
				}
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
