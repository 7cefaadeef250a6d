import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Page, pageOf } from "../../shared/persistence/sql/paging";

/** The two lists a user keeps of others: whom they block (either way hidden), whom they mute (off their timeline). */
export type RestrictionKind = "blocks" | "mutes";

/** One entry of a user's blocks or mutes: the owner's, about `UserId`. */
export interface RestrictionRow {
	OwnerId: string;
	UserId: string;
	CreatedTime: number;
}

const columns = 'owner_id AS "OwnerId", user_id AS "UserId", created_time AS "CreatedTime"';

const row = (r: RestrictionRow): RestrictionRow => ({ ...r, CreatedTime: Number(r.CreatedTime) });

/** A user's blocks or mutes (a table each, same shape): unique by (owner, user). */
export class RestrictionsRepository {
	constructor(
		private readonly db: SqlDatabase,
		private readonly kind: RestrictionKind,
	) {}

	/** Adds the entry unless it is there: the entry as stored (the older one when it was). */
	async add(ownerId: string, userId: string, now: number): Promise<RestrictionRow> {
		const inserted = await this.db.get<RestrictionRow>(
			`INSERT INTO ${this.kind} (owner_id, user_id, created_time) VALUES ($1, $2, $3) ON CONFLICT (owner_id, user_id) DO NOTHING RETURNING ${columns}`,
			[ownerId, userId, now],
		);
		if (inserted) return row(inserted);
		const stored = await this.db.get<RestrictionRow>(
			`SELECT ${columns} FROM ${this.kind} WHERE owner_id = $1 AND user_id = $2`,
			[ownerId, userId],
		);
		// Removed between the two statements by a concurrent removal: the removal came last, and wins.
		return stored ? row(stored) : { OwnerId: ownerId, UserId: userId, CreatedTime: now };
	}

	/** Removes the entry: as it was, or undefined when there was none. */
	async remove(ownerId: string, userId: string): Promise<RestrictionRow | undefined> {
		const removed = await this.db.get<RestrictionRow>(
			`DELETE FROM ${this.kind} WHERE owner_id = $1 AND user_id = $2 RETURNING ${columns}`,
			[ownerId, userId],
		);
		return removed && row(removed);
	}

	/** A page of the owner's entries, oldest first; the cursor is an entry's UserId. */
	async of(ownerId: string, page: Page): Promise<RestrictionRow[]> {
		const list = { table: this.kind, columns, owner: "owner_id", time: "created_time", tiebreak: "user_id" };
		return (await pageOf<RestrictionRow>(this.db, list, ownerId, page)).map(row);
	}

	/** Whether either user has the other in this list. */
	async between(a: string, b: string): Promise<boolean> {
		const found = await this.db.get(
			`SELECT 1 AS found FROM ${this.kind} WHERE (owner_id = $1 AND user_id = $2) OR (owner_id = $2 AND user_id = $1) LIMIT 1`,
			[a, b],
		);
		return !!found;
	}

	/** Removes the user's entries and the entries about them (deleting an account): how many. */
	async forgetUser(userId: string): Promise<number> {
		const removed = await this.db.all(
			`DELETE FROM ${this.kind} WHERE owner_id = $1 OR user_id = $1 RETURNING owner_id`,
			[userId],
		);
		return removed.length;
	}
}
