import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, WithRepository } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf, isAdmin, SessionMeta } from "../../shared/caller";
import { readCall } from "../../shared/calls";
import { ReservationsRepository } from "./reservations.repository";
import { reservationsMigrations } from "./reservations.schema";
import { reservationsLegacy } from "./reservations.legacy";
import { ConvertInput, ReservationConversion } from "./reservations.conversion";

type ReservationsThis = Service & WithRepository<ReservationsRepository> & ReservationsVars & ReservationsMethods;

interface ReservationsVars {
	conversion: ReservationConversion;
}

interface ReservationsMethods {
	checkOwner(ctx: Context, action: string, id: string, what: string): Promise<void>;
}

interface ReservationInput {
	Email: string;
	FirstName?: string;
	LastName?: string;
	VenueId?: string;
	NetworkId?: string;
}

/**
 * A conversion that has not renewed its claim for this long is taken for cut off: each of its steps
 * is one call, which fails after the request timeout, so a live one renews well within it.
 */
const conversionLeaseMs = (config: PlazaConfig) => 2 * config.cluster.requestTimeoutMs;

/** Invitations (UserReservations) and their conversion into accounts. */
export function reservationsService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, ReservationsMethods, WithRepository<ReservationsRepository> & ReservationsVars> = {
		name: "reservations",
		mixins: [repositoryMixin(config.store, { domain: "reservations", migrations: reservationsMigrations, create: db => new ReservationsRepository(db), legacy: reservationsLegacy })],

		created(this: ReservationsThis) {
			this.conversion = new ReservationConversion(this.repo, conversionLeaseMs(config), this.logger);
		},

		actions: {
			async create(this: ReservationsThis, ctx: Context<ReservationInput>) {
				// An invitation brings membership: only who may grant it may promise it.
				if (ctx.params.VenueId) await this.checkOwner(ctx, "venues.byIds", ctx.params.VenueId, "Venue");
				if (ctx.params.NetworkId) await this.checkOwner(ctx, "graph.networksByIds", ctx.params.NetworkId, "Network");
				const now = Date.now();
				return this.repo.create({ Id: newGuid(), ...ctx.params, InvitedBy: callerOf(ctx)?.userId, ExpirationDate: now + config.reservationTtlSeconds * 1000, CreatedTime: now });
			},

			async find(this: ReservationsThis, ctx: Context<{ Id: string }>) {
				const found = await this.repo.find(ctx.params.Id);
				const caller = callerOf(ctx);
				if (!found || (!isAdmin(caller) && found.InvitedBy !== caller?.userId)) throw failures.notFound(`Reservation ${ctx.params.Id}`);
				const { conversion: _conversion, ...reservation } = found;
				return reservation;
			},

			async convert(this: ReservationsThis, ctx: Context<ConvertInput, SessionMeta>) {
				return this.conversion.run(ctx);
			},
		},

		methods: {
			async checkOwner(this: ReservationsThis, ctx: Context, action: string, id: string, what: string) {
				const [found] = await readCall<Array<{ OwnerId?: string }>, { ids: string[] }>(ctx, action, { ids: [id] });
				if (!found) throw failures.notFound(`${what} ${id}`);
				const caller = callerOf(ctx);
				if (!isAdmin(caller) && found.OwnerId !== caller?.userId) throw failures.forbidden(`Only the ${what.toLowerCase()}'s owner invites into it`);
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
