import { SqlDatabase, SqlValue } from "../../shared/persistence/sql/database";
import { present } from "../../shared/persistence/sql/rows";
import { ApiKeyChanges, ApiKeyFilter, ApiKeyRow } from "./api-keys.rows";

const columns = `id AS "Id", key_hash AS "KeyHash", visible_key AS "VisibleKey", name AS "Name", user_id AS "UserId",
	user_name AS "UserName", scopes AS "Scopes", notes AS "Notes", created_date AS "CreatedDate",
	expiry_date AS "ExpiryDate", cancelled_date AS "CancelledDate"`;

// No conflict target: a taken Id and a taken KeyHash both insert nothing.
const insertKey = `INSERT INTO api_keys (id, key_hash, visible_key, name, user_id, user_name, scopes, notes,
	created_date, expiry_date, cancelled_date) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT DO NOTHING`;

/** The columns an update sets: undefined keeps a column, null clears it. */
const assignmentsOf = (c: ApiKeyChanges): Array<[string, string | number | null | undefined]> => [
	["name", c.Name],
	["scopes", c.Scopes && JSON.stringify(c.Scopes)],
	["notes", c.Notes],
	["expiry_date", c.ExpiryDate],
	["cancelled_date", c.CancelledDate],
];

/** The LIKE pattern of "contains `text`", its wildcards escaped (with `ESCAPE '\'`). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, char => `\\${char}`)}%`;

/** A row as read: nulls left out, Scopes parsed. */
function toKey(row: ApiKeyRow): ApiKeyRow {
	const key = present(row);
	key.Scopes = typeof key.Scopes === "string" ? (JSON.parse(key.Scopes) as string[]) : [];
	return key;
}

/** API keys by Id and by the hash of the key, listed per user or all, newest first. */
export class ApiKeysRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** Adds a key; false when its Id or KeyHash is taken. */
	async create(row: ApiKeyRow): Promise<boolean> {
		const values: SqlValue[] = [
			row.Id,
			row.KeyHash,
			row.VisibleKey,
			row.Name,
			row.UserId,
			row.UserName ?? null,
			JSON.stringify(row.Scopes),
			row.Notes ?? null,
			row.CreatedDate,
			row.ExpiryDate ?? null,
			row.CancelledDate ?? null,
		];
		return (await this.db.run(insertKey, values)) > 0;
	}

	async byHash(hash: string): Promise<ApiKeyRow | undefined> {
		const row = await this.db.get<ApiKeyRow>(`SELECT ${columns} FROM api_keys WHERE key_hash = $1`, [hash]);
		return row && toKey(row);
	}

	async find(id: number): Promise<ApiKeyRow | undefined> {
		const row = await this.db.get<ApiKeyRow>(`SELECT ${columns} FROM api_keys WHERE id = $1`, [id]);
		return row && toKey(row);
	}

	/** Keys newest first; `search` is a case-insensitive substring of Name or Notes. */
	async page(filter: ApiKeyFilter, skip: number, take: number): Promise<ApiKeyRow[]> {
		if (take <= 0) return [];
		const params: SqlValue[] = [take, skip];
		const where: string[] = [];
		if (filter.userId !== undefined) {
			params.push(filter.userId);
			where.push(`user_id = $${params.length}`);
		}
		if (filter.search) {
			params.push(containing(filter.search));
			const pattern = `LOWER($${params.length}) ESCAPE '\\'`;
			where.push(`(LOWER(name) LIKE ${pattern} OR LOWER(notes) LIKE ${pattern})`);
		}
		const rows = await this.db.all<ApiKeyRow>(
			`SELECT ${columns} FROM api_keys ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
			ORDER BY created_date DESC, id DESC LIMIT $1 OFFSET $2`,
			params,
		);
		return rows.map(toKey);
	}

	/** Applies the fields given (`null` clears one); the key as it is then, or undefined when there is none. */
	async update(id: number, changes: ApiKeyChanges): Promise<ApiKeyRow | undefined> {
		const params: SqlValue[] = [id];
		const set: string[] = [];
		for (const [column, value] of assignmentsOf(changes)) {
			if (value === undefined) continue;
			params.push(value);
			set.push(`${column} = $${params.length}`);
		}
		if (!set.length) return this.find(id);
		const row = await this.db.get<ApiKeyRow>(
			`UPDATE api_keys SET ${set.join(", ")} WHERE id = $1 RETURNING ${columns}`,
			params,
		);
		return row && toKey(row);
	}

	/** Deletes a key: what it was, or undefined when there was none. */
	async remove(id: number): Promise<ApiKeyRow | undefined> {
		const row = await this.db.get<ApiKeyRow>(`DELETE FROM api_keys WHERE id = $1 RETURNING ${columns}`, [id]);
		return row && toKey(row);
	}

	/** The key hashes of one user, oldest key first. */
	async hashesOf(userId: string): Promise<string[]> {
		const rows = await this.db.all<{ key_hash: string }>(
			"SELECT key_hash FROM api_keys WHERE user_id = $1 ORDER BY created_date, id",
			[userId],
		);
		return rows.map(row => row.key_hash);
	}
}
