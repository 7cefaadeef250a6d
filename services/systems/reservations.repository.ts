import { SqlDatabase, SqlValue } from "../../shared/persistence/sql/database";
import { present } from "../../shared/persistence/sql/rows";

export interface ReservationRow {
	Id: string;
	Email: string;
	FirstName?: string;
	LastName?: string;
	VenueId?: string;
	NetworkId?: string;
	InvitedBy?: string;
	ExpirationDate: number;
	CreatedTime: number;
}

export type ConversionState = "open" | "pending" | "done";

/** Where a reservation's conversion stands: the attempt that holds it, and the account that attempt makes. */
export interface Conversion {
	State: ConversionState;
	AttemptId?: string;
	UserId?: string;
	ClaimedTime?: number;
	ConvertedTime?: number;
}

export type StoredReservation = ReservationRow & { conversion: Conversion };

/** A claim just taken: the account a cut-off attempt before it may have left behind (to undo first). */
export interface Claim {
	staleUserId?: string;
}

const reservationColumns =
	'id AS "Id", email AS "Email", first_name AS "FirstName", last_name AS "LastName", venue_id AS "VenueId", network_id AS "NetworkId", invited_by AS "InvitedBy", expiration_date AS "ExpirationDate", created_time AS "CreatedTime"';
const conversionColumns =
	'conversion_state AS "State", conversion_id AS "AttemptId", conversion_user_id AS "UserId", claimed_time AS "ClaimedTime", converted_time AS "ConvertedTime"';
const insertReservation =
	"INSERT INTO user_reservations (id, email, first_name, last_name, venue_id, network_id, invited_by, expiration_date, created_time, conversion_state, converted_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
/** Only the attempt that holds the claim changes it. */
const heldBy = "id = $1 AND conversion_id = $2 AND conversion_state = 'pending'";

const values = (r: ReservationRow): SqlValue[] => [
	r.Id,
	r.Email,
	r.FirstName,
	r.LastName,
	r.VenueId,
	r.NetworkId,
	r.InvitedBy,
	r.ExpirationDate,
	r.CreatedTime,
];

/** Invitations, and the claim that makes their conversion happen once. */
export class ReservationsRepository {
	constructor(private readonly db: SqlDatabase) {}

	async create(reservation: ReservationRow): Promise<ReservationRow> {
		await this.db.run(insertReservation, [...values(reservation), "open", null]);
		return present({ ...reservation });
	}

	/** A reservation as the former store held it (converted or not); nothing when it is there already. */
	async importReservation(reservation: ReservationRow, convertedTime: number | undefined): Promise<void> {
		await this.db.run(`${insertReservation} ON CONFLICT (id) DO NOTHING`, [
			...values(reservation),
			convertedTime === undefined ? "open" : "done",
			convertedTime,
		]);
	}

	async find(id: string): Promise<StoredReservation | undefined> {
		const row = await this.db.get<ReservationRow & Conversion>(
			`SELECT ${reservationColumns}, ${conversionColumns} FROM user_reservations WHERE id = $1`,
			[id],
		);
		if (!row) return undefined;
		const { State, AttemptId, UserId, ClaimedTime, ConvertedTime, ...reservation } = present(row);
		return { ...reservation, conversion: present({ State, AttemptId, UserId, ClaimedTime, ConvertedTime }) };
	}

	/**
	 * Claims the conversion for `attemptId`: an open reservation, or one whose pending attempt has
	 * not been heard of since `staleBefore` (cut off: its process died). Of attempts at once, one gets
	 * it; the others get undefined.
	 */
	async claim(id: string, attemptId: string, now: number, staleBefore: number): Promise<Claim | undefined> {
		const row = await this.db.get<{ staleUserId: string | null }>(
			`UPDATE user_reservations SET conversion_state = 'pending', conversion_id = $2, claimed_time = $3
			 WHERE id = $1 AND (conversion_state = 'open' OR (conversion_state = 'pending' AND claimed_time <= $4))
			 RETURNING conversion_user_id AS "staleUserId"`,
			[id, attemptId, now, staleBefore],
		);
		return row && { staleUserId: row.staleUserId ?? undefined };
	}

	/**
	 * Records the account the attempt makes, before it makes it (so that a retry can undo it), and
	 * renews the claim; false when the claim is no longer the attempt's.
	 */
	async recordAccount(id: string, attemptId: string, userId: string, now: number): Promise<boolean> {
		return (
			(await this.db.run(`UPDATE user_reservations SET conversion_user_id = $3, claimed_time = $4 WHERE ${heldBy}`, [
				id,
				attemptId,
				userId,
				now,
			])) > 0
		);
	}

	/** Says the attempt is alive, before each step; false when the claim is no longer its. */
	async renew(id: string, attemptId: string, now: number): Promise<boolean> {
		return (
			(await this.db.run(`UPDATE user_reservations SET claimed_time = $3 WHERE ${heldBy}`, [id, attemptId, now])) > 0
		);
	}

	/** The conversion's last write: done, with the account made; false when the claim is no longer the attempt's. */
	async finish(id: string, attemptId: string, now: number): Promise<boolean> {
		return (
			(await this.db.run(
				`UPDATE user_reservations SET conversion_state = 'done', converted_time = $3 WHERE ${heldBy}`,
				[id, attemptId, now],
			)) > 0
		);
	}

	/** Reservations whose conversion was claimed and not heard of since `staleBefore`: cut off (at most `limit`). */
	async cutOff(staleBefore: number, limit = 100): Promise<string[]> {
		const rows = await this.db.all<{ id: string }>(
			`SELECT id FROM user_reservations WHERE conversion_state = 'pending' AND claimed_time <= $1 LIMIT ${limit}`,
			[staleBefore],
		);
		return rows.map(row => row.id);
	}

	/** Opens the reservation again once the attempt's steps are undone. */
	async release(id: string, attemptId: string): Promise<boolean> {
		return (
			(await this.db.run(
				`UPDATE user_reservations SET conversion_state = 'open', conversion_id = NULL, conversion_user_id = NULL, claimed_time = NULL WHERE ${heldBy}`,
				[id, attemptId],
			)) > 0
		);
	}

	/**
	 * Removes the open reservations a user made (an account deleted): how many. Converted ones stay, and so do pending
	 * ones, whose conversion must finish or be undone first.
	 */
	async removeOpenOf(invitedBy: string): Promise<number> {
		return this.db.run("DELETE FROM user_reservations WHERE invited_by = $1 AND conversion_state = 'open'", [
			invitedBy,
		]);
	}
}
