import { SqlDatabase, SqlExecutor, SqlValue } from "../../shared/persistence/sql/database";
import { Page, pageOf } from "../../shared/persistence/sql/paging";
import { newGuid } from "../../shared/wire/guid";

/** One side of a connection: the owner's record of whom they are connected to. */
export interface ConnectionRow {
	Id: string;
	OwnerId: string;
	UserId: string;
	IsFavorite: boolean;
}

export interface ConnectionSide extends ConnectionRow {
	CreatedTime: number;
}

/** What forgetting a user removed of their connections: sides (two a connection) and the users at their other ends. */
export interface ForgottenConnections {
	removed: number;
	others: string[];
}

const columns = 'id AS "Id", owner_id AS "OwnerId", user_id AS "UserId", is_favorite AS "IsFavorite"';

/** Rows carry is_favorite as 0/1 (both engines): a boolean on the way out. */
const connection = (row: ConnectionRow): ConnectionRow => ({ ...row, IsFavorite: Number(row.IsFavorite) === 1 });

/** Inserts a side unless its (owner, user) exists: whether this call inserted it. */
async function insertSide(db: SqlExecutor, side: ConnectionSide): Promise<boolean> {
	const inserted = await db.get(
		"INSERT INTO connections (id, owner_id, user_id, is_favorite, created_time) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (owner_id, user_id) DO NOTHING RETURNING id",
		[side.Id, side.OwnerId, side.UserId, side.IsFavorite, side.CreatedTime],
	);
	return !!inserted;
}

/** A new connection's two sides: the owner's (favourite or not), and the other user's. */
export function newPair(
	ownerId: string,
	userId: string,
	isFavorite: boolean,
	now: number,
): [ConnectionSide, ConnectionSide] {
	const side = (owner: string, user: string, favorite: boolean): ConnectionSide => ({
		Id: newGuid(),
		OwnerId: owner,
		UserId: user,
		IsFavorite: favorite,
		CreatedTime: now,
	});
	return [side(ownerId, userId, isFavorite), side(userId, ownerId, false)];
}

/** Connections: mutual, one row per side, a side unique by (owner, user); both sides written and removed together. */
export class ConnectionsRepository {
	constructor(private readonly db: SqlDatabase) {}

	/**
	 * Connects two users, both sides in one transaction: [the owner's side, the other's], or undefined
	 * when the owner is connected already (either way round). A side missing from an older store is
	 * written then too, so that a retry repairs a half pair.
	 */
	async connect(
		ownerId: string,
		userId: string,
		isFavorite: boolean,
		now: number,
	): Promise<[ConnectionRow, ConnectionRow] | undefined> {
		const [mine, theirs] = newPair(ownerId, userId, isFavorite, now);
		return this.db.transaction(async tx => {
			// The lower owner's side first, whoever asks: A→B and B→A at once wait on one key rather than deadlock.
			const ordered = ownerId < userId ? [mine, theirs] : [theirs, mine];
			const inserted = new Set<ConnectionSide>();
			for (const side of ordered) if (await insertSide(tx, side)) inserted.add(side);
			if (!inserted.has(mine)) return undefined;
			if (inserted.has(theirs)) return [strip(mine), strip(theirs)];
			const other = await tx.get<ConnectionRow>(
				`SELECT ${columns} FROM connections WHERE owner_id = $1 AND user_id = $2`,
				[userId, ownerId],
			);
			return [strip(mine), other ? connection(other) : strip(theirs)];
		});
	}

	/**
	 * Removes a connection, both sides in one transaction: the owner's side as it was, or undefined when the owner has no
	 * such connection.
	 */
	async disconnect(id: string, ownerId: string): Promise<ConnectionRow | undefined> {
		return this.db.transaction(async tx => {
			const found = await tx.get<ConnectionRow>(`SELECT ${columns} FROM connections WHERE id = $1 AND owner_id = $2`, [
				id,
				ownerId,
			]);
			if (!found) return undefined;
			const sides: Array<[string, string]> = [
				[found.OwnerId, found.UserId],
				[found.UserId, found.OwnerId],
			];
			// The lower owner's side first, as in connect: both sides removed at once wait on one row rather than deadlock.
			if (found.UserId < found.OwnerId) sides.reverse();
			let mine: ConnectionRow | undefined;
			for (const [owner, user] of sides) {
				const row = await tx.get<ConnectionRow>(
					`DELETE FROM connections WHERE owner_id = $1 AND user_id = $2 RETURNING ${columns}`,
					[owner, user],
				);
				if (owner === ownerId) mine = row;
			}
			// Removed meanwhile by the other side's request: that one answers for it.
			return mine && connection(mine);
		});
	}

	/** The owner's side of their connection to the user, or undefined when they are not connected. */
	async sideBetween(ownerId: string, userId: string): Promise<ConnectionRow | undefined> {
		const side = await this.db.get<ConnectionRow>(
			`SELECT ${columns} FROM connections WHERE owner_id = $1 AND user_id = $2`,
			[ownerId, userId],
		);
		return side && connection(side);
	}

	/**
	 * Removes every connection of a user, both sides, in one transaction (deleting an account): the number of sides
	 * removed and the users they were connected to.
	 */
	async forgetUser(userId: string): Promise<ForgottenConnections> {
		return this.db.transaction(async tx => {
			const ids = async (sql: string, params: SqlValue[]) =>
				(await tx.all<{ id: string }>(sql, params)).map(row => row.id);
			// No index leads by user_id: a mirror goes by its owner, read from the user's sides (pairs are whole). Sides go in
			// owner order (lower owners', the user's, higher owners'), as disconnect locks them, so that neither deadlocks.
			const mirrors = async (owners: string[]) => {
				if (owners.length === 0) return [];
				const among = tx.dialect.anyOf("owner_id", "$2");
				return ids(`DELETE FROM connections WHERE user_id = $1 AND ${among} RETURNING owner_id AS id`, [
					userId,
					tx.dialect.listParam(owners),
				]);
			};
			const lower = await ids("SELECT user_id AS id FROM connections WHERE owner_id = $1 AND user_id < $1", [userId]);
			const before = await mirrors(lower);
			const mine = await ids("DELETE FROM connections WHERE owner_id = $1 RETURNING user_id AS id", [userId]);
			const done = new Set(lower);
			const after = await mirrors(mine.filter(id => !done.has(id)));
			return {
				removed: before.length + mine.length + after.length,
				others: [...new Set([...before, ...mine, ...after])],
			};
		});
	}

	/** A page of a user's connections, oldest first; the cursor is a connection's Id. */
	async of(ownerId: string, page: Page): Promise<ConnectionRow[]> {
		return (
			await pageOf<ConnectionRow>(
				this.db,
				{ table: "connections", columns, owner: "owner_id", time: "created_time", tiebreak: "id" },
				ownerId,
				page,
			)
		).map(connection);
	}

	/** The first `limit` connections of each of these users (oldest first, grouped by owner), cut in the query. */
	async firstOf(ownerIds: string[], limit: number): Promise<ConnectionRow[]> {
		if (ownerIds.length === 0 || limit === 0) return [];
		const rows = await this.db.all<ConnectionRow>(
			`SELECT id AS "Id", owner_id AS "OwnerId", user_id AS "UserId", is_favorite AS "IsFavorite" FROM (
				SELECT id, owner_id, user_id, is_favorite, ROW_NUMBER() OVER (PARTITION BY owner_id ORDER BY created_time, id) AS n
				FROM connections WHERE ${this.db.dialect.anyOf("owner_id", "$1")}
			) ranked WHERE n <= $2 ORDER BY owner_id, n`,
			[this.db.dialect.listParam(ownerIds), limit],
		);
		return rows.map(connection);
	}

	/**
	 * A side as the former store held it, and its mirror unless that exists: a side read from the
	 * store wins over a mirror written for it earlier (it keeps its Id and IsFavorite), so the import
	 * ends in whole pairs whatever the order of the documents, and running it again changes nothing.
	 */
	async importSide(side: ConnectionSide): Promise<void> {
		await this.db.transaction(async tx => {
			await tx.run(
				`INSERT INTO connections (id, owner_id, user_id, is_favorite, created_time) VALUES ($1, $2, $3, $4, $5)
				 ON CONFLICT (owner_id, user_id) DO UPDATE SET id = excluded.id, is_favorite = excluded.is_favorite, created_time = excluded.created_time`,
				[side.Id, side.OwnerId, side.UserId, side.IsFavorite, side.CreatedTime],
			);
			await insertSide(tx, {
				Id: newGuid(),
				OwnerId: side.UserId,
				UserId: side.OwnerId,
				IsFavorite: false,
				CreatedTime: side.CreatedTime,
			});
		});
	}
}

function strip(side: ConnectionSide): ConnectionRow {
	const { CreatedTime: _, ...row } = side;
	return row;
}
