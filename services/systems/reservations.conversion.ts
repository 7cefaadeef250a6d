import { Context, Logger } from "moleculer";
import { failures } from "../../shared/errors";
import { Caller, SessionMeta } from "../../shared/caller";
import { newGuid } from "../../shared/wire/guid";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { ReservationsRepository, StoredReservation } from "./reservations.repository";
import { changed } from "../../shared/changes/changes";

export interface ConvertInput {
	ReservationId: string;
	UserName: string;
	Password: string;
}

export interface Registration {
	UserId: string;
	SessionId: string;
	UserName: string;
}

type Membership = { venueId?: string; networkId?: string; userId: string };

const convertedAlready = () => failures.alreadyExists("ReservationId", "The reservation has been converted already");
const beingConverted = () =>
	failures.alreadyExists(
		"ReservationId",
		"The reservation is being converted; try again in a minute if that conversion does not complete",
	);
const expired = () => failures.field("ReservationId", "InvalidValue", "The reservation has expired");

/** A failure that certainly changed nothing where it happened: a refusal (4xx) rather than a timeout or a lost node. */
const isRefusal = (err: unknown) => {
	const { name, code } = (err ?? {}) as { name?: unknown; code?: unknown };
	return name === "PlazaError" && typeof code === "number" && code < 500;
};

/**
 * Turns a reservation into an account across services as an order of writes a retry can always repair: the attempt
 * claims it (open → pending, in one statement, so one attempt wins), records the account's Id before users makes it
 * and renews the claim before each step (so the claim names all it may have made), and writes done last, only while
 * the claim is its own. A failure undoes the steps and reopens it; an undo that cannot be sure leaves it pending, and
 * after `leaseMs` a retry takes the claim over, undoes what it names and converts afresh.
 */
export class ReservationConversion {
	constructor(
		private readonly repo: RepositoryContract<ReservationsRepository>,
		private readonly leaseMs: number,
		private readonly logger: Logger,
	) {}

	async run(ctx: Context<ConvertInput, SessionMeta>): Promise<Registration> {
		const reservation = await this.repo.find(ctx.params.ReservationId);
		if (!reservation) throw failures.notFound(`Reservation ${ctx.params.ReservationId}`);
		if (reservation.conversion.State === "done") throw convertedAlready();
		const now = Date.now();
		if (reservation.conversion.State === "open" && reservation.ExpirationDate <= now) throw expired();
		const attempt = newGuid();
		const claim = await this.repo.claim(reservation.Id, attempt, now, now - this.leaseMs);
		if (!claim) throw reservation.conversion.State === "open" ? convertedAlready() : beingConverted();

		let accountId = claim.staleUserId;
		try {
			// What a cut-off attempt did is undone before anything new is made (its account holds the e-mail address).
			if (accountId) await this.undo(ctx, reservation, accountId);
			if (reservation.ExpirationDate <= Date.now()) throw expired();
			accountId = newGuid();
			if (!(await this.repo.recordAccount(reservation.Id, attempt, accountId, Date.now()))) throw beingConverted();
			const registration = await this.convert(ctx, reservation, attempt, accountId);
			if (!(await this.repo.finish(reservation.Id, attempt, Date.now()))) throw beingConverted();
			await changed(ctx, { domain: "reservations" });
			return registration;
		} catch (err) {
			await this.abandon(ctx, reservation, attempt, accountId, isRefusal(err));
			throw err;
		}
	}

	/**
	 * Makes every conversion cut off more than a lease ago absent, whether or not its guest retries:
	 * takes its claim over, undoes what the claim names (the account can no longer sign in, its
	 * memberships go) and opens the reservation again. Of nodes sweeping at once, one takes each claim;
	 * one whose undo fails keeps it, for the next sweep. Returns how many were reopened.
	 */
	async reopenCutOff(ctx: Context): Promise<number> {
		let reopened = 0;
		for (const id of await this.repo.cutOff(Date.now() - this.leaseMs)) {
			const reservation = await this.repo.find(id);
			const attempt = newGuid();
			const now = Date.now();
			const claim = reservation && (await this.repo.claim(id, attempt, now, now - this.leaseMs));
			if (!reservation || !claim) continue;
			try {
				if (claim.staleUserId) await this.undo(ctx, reservation, claim.staleUserId);
				if (await this.repo.release(id, attempt)) reopened += 1;
			} catch (err) {
				this.logger.warn(
					`Undoing the cut-off conversion of reservation ${id} failed; the next sweep tries again:`,
					err,
				);
			}
		}
		return reopened;
	}

	/** The account (with the Id recorded for it), its memberships, its session. */
	private async convert(
		ctx: Context<ConvertInput, SessionMeta>,
		reservation: StoredReservation,
		attempt: string,
		accountId: string,
	): Promise<Registration> {
		const { VenueId: venueId, NetworkId: networkId } = reservation;
		const account = await ctx.call<{ UserId: string; UserName: string; user: Caller }, Record<string, unknown>>(
			"users.createAccount",
			{
				Id: accountId,
				UserName: ctx.params.UserName,
				Password: ctx.params.Password,
				Email: reservation.Email,
				FirstName: reservation.FirstName,
				LastName: reservation.LastName,
				DefaultVenueId: venueId,
			},
		);
		// Should users choose the Id itself, the claim names the account it made instead.
		if (
			account.UserId !== accountId &&
			!(await this.repo.recordAccount(reservation.Id, attempt, account.UserId, Date.now()))
		)
			throw beingConverted();
		const userId = account.UserId;
		const step = async () => {
			if (!(await this.repo.renew(reservation.Id, attempt, Date.now()))) throw beingConverted();
		};
		if (venueId) {
			await step();
			await ctx.call<boolean, Membership>("venues.join", { venueId, userId });
		}
		if (networkId) {
			await step();
			await ctx.call<boolean, Membership>("graph.joinNetwork", { networkId, userId });
		}
		await step();
		const session = await ctx.call<{ SessionId: string }, { user: Caller; persistent: boolean }>("sessions.open", {
			user: account.user,
			persistent: false,
		});
		return { UserId: userId, SessionId: session.SessionId, UserName: account.UserName };
	}

	/** Undoes every step an attempt may have done for `userId`; each is a no-op when that step was not done. */
	private async undo(ctx: Context, reservation: StoredReservation, userId: string): Promise<void> {
		if (reservation.NetworkId) await ctx.call("graph.leaveNetwork", { networkId: reservation.NetworkId, userId });
		if (reservation.VenueId) await ctx.call("venues.leave", { venueId: reservation.VenueId, userId });
		await ctx.call("users.removeAccount", { id: userId });
	}

	/**
	 * After a failure: undo, then open the reservation again, but only when the failure was a refusal
	 * (a step that timed out may still complete after the undo); otherwise the claim stays pending
	 * for a retry to take over once the lease has run out.
	 */
	private async abandon(
		ctx: Context,
		reservation: StoredReservation,
		attempt: string,
		accountId: string | undefined,
		refused: boolean,
	): Promise<void> {
		try {
			if (accountId) await this.undo(ctx, reservation, accountId);
			if (refused) await this.repo.release(reservation.Id, attempt);
		} catch (err) {
			this.logger.error(
				`Undoing a failed conversion of reservation ${reservation.Id} failed; a retry after the lease repairs it:`,
				err,
			);
		}
	}
}
