import { SqlDatabase } from "../../shared/persistence/sql/database";
import { afterAnchor, anchorOf, anchorParams, Page, pageOf } from "../../shared/persistence/sql/paging";
import { present } from "../../shared/persistence/sql/rows";

export interface VenueRow {
	Id: string;
	Name: string;
	OwnerId: string;
	CreatedTime: number;
}

export interface VenueMemberRow {
	VenueId: string;
	UserId: string;
	RoleId?: string;
	CreatedTime: number;
}

const venueColumns = 'id AS "Id", name AS "Name", owner_id AS "OwnerId", created_time AS "CreatedTime"';
const memberColumns = 'venue_id AS "VenueId", user_id AS "UserId", role_id AS "RoleId", created_time AS "CreatedTime"';

/** Venues and their members (keyed by venue and user, so a member is one row however often added). */
export class VenuesRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** A venue and its owner as its first member, in one transaction. */
	async create(venue: VenueRow): Promise<VenueRow> {
		await this.db.transaction(async tx => {
			await tx.run("INSERT INTO venues (id, name, owner_id, created_time) VALUES ($1, $2, $3, $4)", [
				venue.Id,
				venue.Name,
				venue.OwnerId,
				venue.CreatedTime,
			]);
			await tx.run("INSERT INTO venue_members (venue_id, user_id, created_time) VALUES ($1, $2, $3)", [
				venue.Id,
				venue.OwnerId,
				venue.CreatedTime,
			]);
		});
		return venue;
	}

	/** A venue as the former store held it (its members come separately); nothing when it is there already. */
	async importVenue(venue: VenueRow): Promise<void> {
		await this.db.run(
			"INSERT INTO venues (id, name, owner_id, created_time) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING",
			[venue.Id, venue.Name, venue.OwnerId, venue.CreatedTime],
		);
	}

	async find(id: string): Promise<VenueRow | undefined> {
		return this.db.get<VenueRow>(`SELECT ${venueColumns} FROM venues WHERE id = $1`, [id]);
	}

	async findMany(ids: string[]): Promise<VenueRow[]> {
		if (ids.length === 0) return [];
		return this.db.all<VenueRow>(`SELECT ${venueColumns} FROM venues WHERE ${this.db.dialect.anyOf("id", "$1")}`, [
			this.db.dialect.listParam(ids),
		]);
	}

	/** Adds a member unless they are one: the member row, or undefined when it existed. */
	async addMember(
		venueId: string,
		userId: string,
		roleId: string | undefined,
		now: number,
	): Promise<VenueMemberRow | undefined> {
		const row = await this.db.get<VenueMemberRow>(
			`INSERT INTO venue_members (venue_id, user_id, role_id, created_time) VALUES ($1, $2, $3, $4) ON CONFLICT (venue_id, user_id) DO NOTHING RETURNING ${memberColumns}`,
			[venueId, userId, roleId ?? null, now],
		);
		return row && present(row);
	}

	/** Sets (or, undefined, clears) a member's role: the member row, or undefined when there is no such member. */
	async setRole(
		venueId: string,
		userId: string,
		roleId: string | undefined,
		now: number,
	): Promise<VenueMemberRow | undefined> {
		const row = await this.db.get<VenueMemberRow>(
			`UPDATE venue_members SET role_id = $3, updated_time = $4 WHERE venue_id = $1 AND user_id = $2 RETURNING ${memberColumns}`,
			[venueId, userId, roleId ?? null, now],
		);
		return row && present(row);
	}

	async isMember(venueId: string, userId: string): Promise<boolean> {
		return !!(await this.db.get("SELECT 1 AS member FROM venue_members WHERE venue_id = $1 AND user_id = $2", [
			venueId,
			userId,
		]));
	}

	async removeMember(venueId: string, userId: string): Promise<boolean> {
		return (await this.db.run("DELETE FROM venue_members WHERE venue_id = $1 AND user_id = $2", [venueId, userId])) > 0;
	}

	/** Ends every membership of a user (deleting an account; the venues they own stay): how many. */
	async forgetUser(userId: string): Promise<number> {
		return this.db.run("DELETE FROM venue_members WHERE user_id = $1", [userId]);
	}

	/** A page of a venue's members, in the order they joined; the cursor is a member's UserId. */
	async members(venueId: string, page: Page): Promise<VenueMemberRow[]> {
		const list = {
			table: "venue_members",
			columns: memberColumns,
			owner: "venue_id",
			time: "created_time",
			tiebreak: "user_id",
		};
		return (await pageOf<VenueMemberRow>(this.db, list, venueId, page)).map(present);
	}

	/** A page of the venues a user is a member of, in the order joined; the cursor is a venue's Id. */
	async venuesOf(userId: string, page: Page): Promise<VenueRow[]> {
		if (page.Limit === 0) return [];
		const anchor = await anchorOf(
			this.db,
			page,
			"SELECT created_time AS time, venue_id AS id FROM venue_members WHERE venue_id = $1 AND user_id = $2",
			[userId],
		);
		const after = anchor ? `AND ${afterAnchor("m.created_time", "m.venue_id", 4)}` : "";
		return this.db.all<VenueRow>(
			`SELECT v.id AS "Id", v.name AS "Name", v.owner_id AS "OwnerId", v.created_time AS "CreatedTime"
			 FROM venue_members m JOIN venues v ON v.id = m.venue_id
			 WHERE m.user_id = $1 ${after} ORDER BY m.created_time, m.venue_id LIMIT $2 OFFSET $3`,
			[userId, page.Limit, page.Offset, ...(anchor ? anchorParams(anchor) : [])],
		);
	}
}
