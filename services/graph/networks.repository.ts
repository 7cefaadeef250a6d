import { SqlDatabase, SqlExecutor } from "../../shared/persistence/sql/database";
import { afterAnchor, anchorOf, anchorParams, Page, pageOf } from "../../shared/persistence/sql/paging";
import { failures } from "../../shared/errors";
import { newGuid } from "../../shared/wire/guid";

export interface NetworkRow {
	Id: string;
	Name: string;
	OwnerId: string;
	NumberOfMembers: number;
	/**
	 * Anyone signed in may add themselves to an open network; only the owner (or an admin) adds members to a closed one.
	 */
	IsOpen: boolean;
}

export interface NetworkMemberRow {
	Id: string;
	NetworkId: string;
	UserId: string;
	CreatedTime: number;
}

/** A network as embedded for one of its members (MemberId says whose). */
export interface MembershipRow extends NetworkRow {
	MemberId: string;
}

const networkColumns = (n: string) =>
	`${n}.id AS "Id", ${n}.name AS "Name", ${n}.owner_id AS "OwnerId", ${n}.number_of_members AS "NumberOfMembers", ${n}.is_open AS "IsOpen"`;
/** Rows carry is_open as 0/1 (both engines): a boolean on the way out. */
const asNetwork = <T extends NetworkRow>(row: T): T => ({ ...row, IsOpen: Number(row.IsOpen) === 1 });

const memberColumns = 'id AS "Id", network_id AS "NetworkId", user_id AS "UserId", created_time AS "CreatedTime"';

/**
 * Inserts a membership unless (network, user) exists and counts it in the same transaction: the row, or undefined when
 * it existed.
 */
async function enroll(tx: SqlExecutor, member: NetworkMemberRow): Promise<NetworkMemberRow | undefined> {
	const row = await tx.get<NetworkMemberRow>(
		`INSERT INTO network_members (id, network_id, user_id, created_time) VALUES ($1, $2, $3, $4) ON CONFLICT (network_id, user_id) DO NOTHING RETURNING ${memberColumns}`,
		[member.Id, member.NetworkId, member.UserId, member.CreatedTime],
	);
	if (!row) return undefined;
	// Only the writer whose insert happened counts it: NumberOfMembers is always the number of member rows.
	const counted = await tx.run("UPDATE networks SET number_of_members = number_of_members + 1 WHERE id = $1", [
		member.NetworkId,
	]);
	if (counted === 0) throw failures.notFound(`Network ${member.NetworkId}`);
	return row;
}

/**
 * Networks and their members (keyed by network and user); a network's NumberOfMembers moves with its member rows, in
 * one transaction.
 */
export class NetworksRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** A network (closed unless `isOpen`) and its owner as its first member, in one transaction. */
	async create(name: string, ownerId: string, now: number, isOpen = false): Promise<NetworkRow> {
		const network: NetworkRow = { Id: newGuid(), Name: name, OwnerId: ownerId, NumberOfMembers: 1, IsOpen: isOpen };
		await this.db.transaction(async tx => {
			await tx.run(
				"INSERT INTO networks (id, name, owner_id, number_of_members, is_open, created_time) VALUES ($1, $2, $3, 1, $4, $5)",
				[network.Id, name, ownerId, isOpen, now],
			);
			await tx.run("INSERT INTO network_members (id, network_id, user_id, created_time) VALUES ($1, $2, $3, $4)", [
				newGuid(),
				network.Id,
				ownerId,
				now,
			]);
		});
		return network;
	}

	async find(id: string): Promise<NetworkRow | undefined> {
		const row = await this.db.get<NetworkRow>(`SELECT ${networkColumns("n")} FROM networks n WHERE n.id = $1`, [id]);
		return row && asNetwork(row);
	}

	async findMany(ids: string[]): Promise<NetworkRow[]> {
		if (ids.length === 0) return [];
		const rows = await this.db.all<NetworkRow>(
			`SELECT ${networkColumns("n")} FROM networks n WHERE ${this.db.dialect.anyOf("n.id", "$1")}`,
			[this.db.dialect.listParam(ids)],
		);
		return rows.map(asNetwork);
	}

	/**
	 * Makes a user a member unless they are one: the member row, or undefined when it existed; 404 when the network does
	 * not.
	 */
	async addMember(
		networkId: string,
		userId: string,
		now: number,
		id = newGuid(),
	): Promise<NetworkMemberRow | undefined> {
		return this.db.transaction(tx => enroll(tx, { Id: id, NetworkId: networkId, UserId: userId, CreatedTime: now }));
	}

	/** Whether a user is a member of a network. */
	async isMember(networkId: string, userId: string): Promise<boolean> {
		return !!(await this.db.get("SELECT 1 AS member FROM network_members WHERE network_id = $1 AND user_id = $2", [
			networkId,
			userId,
		]));
	}

	/** Ends a membership and uncounts it, in one transaction: whether there was one. */
	async removeMember(networkId: string, userId: string): Promise<boolean> {
		return this.db.transaction(async tx => {
			const removed = await tx.run("DELETE FROM network_members WHERE network_id = $1 AND user_id = $2", [
				networkId,
				userId,
			]);
			// (network, user) is unique: at most one row went, and only the writer that removed it uncounts it.
			if (removed > 0)
				await tx.run("UPDATE networks SET number_of_members = number_of_members - 1 WHERE id = $1", [networkId]);
			return removed > 0;
		});
	}

	/**
	 * Ends every membership of a user and uncounts each, in one transaction (deleting an account; the networks they own
	 * stay): the networks left.
	 */
	async forgetUser(userId: string): Promise<string[]> {
		return this.db.transaction(async tx => {
			const left = (
				await tx.all<{ id: string }>("DELETE FROM network_members WHERE user_id = $1 RETURNING network_id AS id", [
					userId,
				])
			).map(row => row.id);
			// (network, user) is unique: each network left lost one member, uncounted by the writer that removed it.
			if (left.length > 0)
				await tx.run(
					`UPDATE networks SET number_of_members = number_of_members - 1 WHERE ${tx.dialect.anyOf("id", "$1")}`,
					[tx.dialect.listParam(left)],
				);
			return left;
		});
	}

	/** A page of a network's members, in the order they joined; the cursor is a member's UserId. */
	async members(networkId: string, page: Page): Promise<NetworkMemberRow[]> {
		const list = {
			table: "network_members",
			columns: memberColumns,
			owner: "network_id",
			time: "created_time",
			tiebreak: "id",
			cursor: "user_id",
		};
		return pageOf<NetworkMemberRow>(this.db, list, networkId, page);
	}

	/** A page of the networks a user is a member of, in the order joined; the cursor is a network's Id. */
	async networksOf(userId: string, page: Page): Promise<NetworkRow[]> {
		if (page.Limit === 0) return [];
		const anchor = await anchorOf(
			this.db,
			page,
			"SELECT created_time AS time, id FROM network_members WHERE network_id = $1 AND user_id = $2",
			[userId],
		);
		const after = anchor ? `AND ${afterAnchor("m.created_time", "m.id", 4)}` : "";
		const rows = await this.db.all<NetworkRow>(
			`SELECT ${networkColumns("n")} FROM network_members m JOIN networks n ON n.id = m.network_id
			 WHERE m.user_id = $1 ${after} ORDER BY m.created_time, m.id LIMIT $2 OFFSET $3`,
			[userId, page.Limit, page.Offset, ...(anchor ? anchorParams(anchor) : [])],
		);
		return rows.map(asNetwork);
	}

	/**
	 * The first `limit` networks each of these users joined (in the order joined, grouped by member), cut in the query.
	 */
	async firstOf(userIds: string[], limit: number): Promise<MembershipRow[]> {
		if (userIds.length === 0 || limit === 0) return [];
		const rows = await this.db.all<MembershipRow>(
			`SELECT m.user_id AS "MemberId", ${networkColumns("n")} FROM (
				SELECT user_id, network_id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY created_time, id) AS rank
				FROM network_members WHERE ${this.db.dialect.anyOf("user_id", "$1")}
			) m JOIN networks n ON n.id = m.network_id WHERE m.rank <= $2 ORDER BY m.user_id, m.rank`,
			[this.db.dialect.listParam(userIds), limit],
		);
		return rows.map(asNetwork);
	}

	/** A network as the former store held it, counting no one: its imported members count themselves. */
	async importNetwork(network: Omit<NetworkRow, "IsOpen"> & { IsOpen?: boolean; CreatedTime: number }): Promise<void> {
		await this.db.run(
			"INSERT INTO networks (id, name, owner_id, number_of_members, is_open, created_time) VALUES ($1, $2, $3, 0, $4, $5) ON CONFLICT (id) DO NOTHING",
			[network.Id, network.Name, network.OwnerId, network.IsOpen ?? false, network.CreatedTime],
		);
	}

	/** A membership as the former store held it; nothing when it is there already or its network is not. */
	async importMember(member: NetworkMemberRow): Promise<void> {
		if (!(await this.find(member.NetworkId))) return;
		await this.addMember(member.NetworkId, member.UserId, member.CreatedTime, member.Id);
	}
}
