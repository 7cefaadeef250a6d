import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf, isAdmin } from "../../shared/caller";
import { readCall } from "../../shared/calls";
import { withoutEmail } from "../../shared/emails";
import { ReservationsRepository } from "./reservations.repository";
import { reservationsMigrations } from "./reservations.schema";
import { reservationsLegacy } from "./reservations.legacy";
import { MongoReservationsRepository, reservationsMongoMigrations } from "./reservations.mongo";
import { ReservationConversion } from "./reservations.conversion";
import { typedService } from "../../shared/implement";
import { systemsOperations } from "../../shared/catalogue";
import { changed } from "../../shared/changes/changes";

interface ReservationsVars {
	conversion: ReservationConversion;
	sweeper?: NodeJS.Timeout;
}

interface ReservationsMethods {
	checkOwner(ctx: Context, action: string, id: string, what: string): Promise<void>;
	reopenCutOff(): Promise<number>;
}

/**
 * A conversion that has not renewed its claim for this long is taken for cut off: each of its steps
 * is one call, which fails after the request timeout, so a live one renews well within it.
 */
const conversionLeaseMs = (config: PlazaConfig) => 2 * config.cluster.requestTimeoutMs;

const { implement, define } = typedService<
	ReservationsMethods,
	WithRepository<RepositoryContract<ReservationsRepository>> & ReservationsVars
>();

/** Invitations (UserReservations) and their conversion into accounts. */
export function reservationsService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "reservations",
		mixins: [
			repositoryMixin<RepositoryContract<ReservationsRepository>>(config.store, {
				domain: "reservations",
				migrations: reservationsMigrations,
				create: db => new ReservationsRepository(db),
				mongo: { migrations: reservationsMongoMigrations, create: store => new MongoReservationsRepository(store) },
				legacy: reservationsLegacy,
			}),
		],

		created() {
			this.conversion = new ReservationConversion(this.repo, conversionLeaseMs(config), this.logger);
		},

		// Conversions cut off by a crash are made absent at start and then every lease, retried or not.
		started() {
			const sweep = () =>
				void this.reopenCutOff().catch((err: unknown) =>
					this.logger.warn("Reopening cut-off conversions failed:", err),
				);
			sweep();
			this.sweeper = setInterval(sweep, conversionLeaseMs(config)).unref();
		},

		stopped() {
			clearInterval(this.sweeper);
		},

		actions: {
			...implement(systemsOperations.CreateUserReservation, async function (ctx) {
				// An invitation brings membership: only who may grant it may promise it.
				if (ctx.params.VenueId) await this.checkOwner(ctx, "venues.byIds", ctx.params.VenueId, "Venue");
				if (ctx.params.NetworkId) await this.checkOwner(ctx, "graph.networksByIds", ctx.params.NetworkId, "Network");
				const now = Date.now();
				const reservation = await this.repo.create({
					Id: newGuid(),
					...ctx.params,
					InvitedBy: callerOf(ctx)?.userId,
					ExpirationDate: now + config.reservationTtlSeconds * 1000,
					CreatedTime: now,
				});
				await changed(ctx, { domain: "reservations" });
				return reservation;
			}),

			...implement(systemsOperations.FindUserReservation, async function (ctx) {
				const found = await this.repo.find(ctx.params.Id);
				const caller = callerOf(ctx);
				if (!found || (!isAdmin(caller) && found.InvitedBy !== caller?.userId))
					throw failures.notFound(`Reservation ${ctx.params.Id}`);
				const { conversion: _conversion, ...reservation } = found;
				// The address is the invitee's, not the inviter's: only admins read it back.
				return isAdmin(caller) ? reservation : withoutEmail(reservation);
			}),

			...implement(systemsOperations.ConvertFromReservation, async function (ctx) {
				return this.conversion.run(ctx);
			}),

			/** Internal: removes the open reservations a deleted account made; again, or with none left, is fine. */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					const removed = await this.repo.removeOpenOf(ctx.params.userId);
					// Stated even when nothing was left: a first call cut off before stating may have removed it.
					await changed(ctx, { domain: "reservations" });
					return removed;
				},
			},
		},

		methods: {
			/**
			 * The sweep, as a call of this service (the users, venues and graph actions it undoes with take only their known
			 * callers).
			 */
			async reopenCutOff() {
				const ctx = Context.create(this.broker);
				ctx.service = this;
				ctx.meta = {};
				return this.conversion.reopenCutOff(ctx);
			},

			async checkOwner(ctx: Context, action: string, id: string, what: string) {
				const [found] = await readCall<Array<{ OwnerId?: string }>, { ids: string[] }>(ctx, action, { ids: [id] });
				if (!found) throw failures.notFound(`${what} ${id}`);
				const caller = callerOf(ctx);
				if (!isAdmin(caller) && found.OwnerId !== caller?.userId)
					throw failures.forbidden(`Only the ${what.toLowerCase()}'s owner invites into it`);
			},
		},
	});
}
