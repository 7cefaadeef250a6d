import { Collection, Filter } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import {
	Claim,
	ConversionState,
	ReservationRow,
	ReservationsRepository,
	StoredReservation,
} from "./reservations.repository";
import { definedFields } from "../../shared/persistence/mongo/documents";

/** A reservation with the state of its conversion, in the SQL table's columns. */
interface ReservationDocument {
	_id: string;
	email: string;
	first_name?: string;
	last_name?: string;
	venue_id?: string;
	network_id?: string;
	invited_by?: string;
	expiration_date: number;
	created_time: number;
	conversion_state: ConversionState;
	conversion_id?: string;
	conversion_user_id?: string;
	claimed_time?: number;
	converted_time?: number;
}

export const reservationsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "reservations whose conversion is pending, by the time it was last heard of",
		apply: async db => {
			await db
				.collection("user_reservations")
				.createIndex({ conversion_state: 1, claimed_time: 1 }, { name: "user_reservations_by_claim" });
		},
	},
];

const documentOf = (
	r: ReservationRow,
	state: ConversionState,
	convertedTime: number | undefined,
): ReservationDocument =>
	definedFields({
		_id: r.Id,
		email: r.Email,
		first_name: r.FirstName,
		last_name: r.LastName,
		venue_id: r.VenueId,
		network_id: r.NetworkId,
		invited_by: r.InvitedBy,
		expiration_date: r.ExpirationDate,
		created_time: r.CreatedTime,
		conversion_state: state,
		converted_time: convertedTime,
	});

const toStored = (d: ReservationDocument): StoredReservation => ({
	...definedFields({
		Id: d._id,
		Email: d.email,
		FirstName: d.first_name,
		LastName: d.last_name,
		VenueId: d.venue_id,
		NetworkId: d.network_id,
		InvitedBy: d.invited_by,
		ExpirationDate: d.expiration_date,
		CreatedTime: d.created_time,
	}),
	conversion: definedFields({
		State: d.conversion_state,
		AttemptId: d.conversion_id,
		UserId: d.conversion_user_id,
		ClaimedTime: d.claimed_time,
		ConvertedTime: d.converted_time,
	}),
});

/** Only the attempt that holds the claim changes it. */
const heldBy = (id: string, attemptId: string): Filter<ReservationDocument> => ({
	_id: id,
	conversion_id: attemptId,
	conversion_state: "pending",
});

/**
 * Invitations and their conversion claim on MongoDB: what `ReservationsRepository` does on SQL. The
 * claim is one document, so each step is one conditional update of it, as each is one statement there.
 */
export class MongoReservationsRepository implements RepositoryContract<ReservationsRepository> {
	private readonly reservations: Collection<ReservationDocument>;

	constructor(private readonly store: MongoStore) {
		this.reservations = store.collection<ReservationDocument>("user_reservations");
	}

	async create(reservation: ReservationRow): Promise<ReservationRow> {
		await this.reservations.insertOne(documentOf(reservation, "open", undefined));
		return definedFields({ ...reservation });
	}

	async importReservation(reservation: ReservationRow, convertedTime: number | undefined): Promise<void> {
		await this.store.insertOnce(
			this.reservations,
			documentOf(reservation, convertedTime === undefined ? "open" : "done", convertedTime),
		);
	}

	async find(id: string): Promise<StoredReservation | undefined> {
		const doc = await this.reservations.findOne({ _id: id });
		return doc ? toStored(doc) : undefined;
	}

	/**
	 * One conditional update takes the claim: of attempts at once, the first matches and the others find it pending and
	 * fresh.
	 */
	async claim(id: string, attemptId: string, now: number, staleBefore: number): Promise<Claim | undefined> {
		const before = await this.reservations.findOneAndUpdate(
			{
				_id: id,
				$or: [{ conversion_state: "open" }, { conversion_state: "pending", claimed_time: { $lte: staleBefore } }],
			},
			{ $set: { conversion_state: "pending", conversion_id: attemptId, claimed_time: now } },
			{ projection: { conversion_user_id: 1 } },
		);
		return before ? definedFields({ staleUserId: before.conversion_user_id }) : undefined;
	}

	async recordAccount(id: string, attemptId: string, userId: string, now: number): Promise<boolean> {
		return (
			(
				await this.reservations.updateOne(heldBy(id, attemptId), {
					$set: { conversion_user_id: userId, claimed_time: now },
				})
			).matchedCount > 0
		);
	}

	async renew(id: string, attemptId: string, now: number): Promise<boolean> {
		return (await this.reservations.updateOne(heldBy(id, attemptId), { $set: { claimed_time: now } })).matchedCount > 0;
	}

	async finish(id: string, attemptId: string, now: number): Promise<boolean> {
		return (
			(
				await this.reservations.updateOne(heldBy(id, attemptId), {
					$set: { conversion_state: "done", converted_time: now },
				})
			).matchedCount > 0
		);
	}

	async cutOff(staleBefore: number, limit = 100): Promise<string[]> {
		const docs = await this.reservations
			.find({ conversion_state: "pending", claimed_time: { $lte: staleBefore } }, { projection: { _id: 1 } })
			.limit(limit)
			.toArray();
		return docs.map(doc => doc._id);
	}

	async release(id: string, attemptId: string): Promise<boolean> {
		const reopen = {
			$set: { conversion_state: "open" as const },
			$unset: { conversion_id: "" as const, conversion_user_id: "" as const, claimed_time: "" as const },
		};
		return (await this.reservations.updateOne(heldBy(id, attemptId), reopen)).matchedCount > 0;
	}

	async removeOpenOf(invitedBy: string): Promise<number> {
		return (await this.reservations.deleteMany({ invited_by: invitedBy, conversion_state: "open" })).deletedCount;
	}
}
