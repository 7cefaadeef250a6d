import { isUniqueViolation, SqlDatabase, SqlValue } from "../../shared/persistence/sql/database";
import { afterAnchor, anchorOf, anchorParams, Page } from "../../shared/persistence/sql/paging";
import { present } from "../../shared/persistence/sql/rows";
import { failures } from "../../shared/errors";
import { Profile } from "../../shared/profiles";

/** The profile's text fields (SPEC.md §2.1) and their columns (field names on MongoDB). */
export const textColumns = {
	FirstName: "first_name",
	MiddleName: "middle_name",
	LastName: "last_name",
	Suffix: "suffix",
	AboutMe: "about_me",
	JobTitle: "job_title",
	CompanyName: "company_name",
	CompanyAddress: "company_address",
	CompanyCity: "company_city",
	CompanyStateProvince: "company_state_province",
	CompanyPostalCode: "company_postal_code",
	CompanyCountry: "company_country",
	TimeZone: "time_zone",
	DefaultVenueId: "default_venue_id",
} as const;

/** The profile's lists, each a JSON array in its column. */
export const listColumns = {
	Experiences: "experiences",
	Certifications: "certifications",
	Interests: "interests",
} as const;

export type ProfileFields = { [F in keyof typeof textColumns]?: string } & {
	[F in keyof typeof listColumns]?: string[];
};

/** A user as its record shows it (the writer leaves out UserName, DisplayName and Roles). */
export interface UserRow extends ProfileFields {
	Id: string;
	UserName?: string;
	Email?: string;
	DisplayName?: string;
	Roles: string[];
	Cloaked: boolean;
	CreatedTime: number;
	UpdatedTime: number;
}

/** A user with its credentials: only sign-in reads them. */
export interface AccountRow extends UserRow {
	PasswordHash?: string;
	DigestHa1?: string;
}

/** What a new user is made of; fields given "" are left empty. */
export type NewUser = Omit<AccountRow, "Roles" | "Cloaked"> & { Roles?: string[]; Cloaked?: boolean };

/** Changes to a user: a field given "" is cleared, a field left undefined is kept. */
export interface UserChanges extends ProfileFields {
	UserName?: string;
	Email?: string;
	Cloaked?: boolean;
}

/** Who reads AllUsers: cloaked users are left out for everyone but admins and themselves. */
export interface Viewer {
	admin: boolean;
	userId?: string;
}

const recordColumns = [
	`id AS "Id"`,
	`user_name AS "UserName"`,
	`email AS "Email"`,
	`display_name AS "DisplayName"`,
	...Object.entries(textColumns).map(([field, column]) => `${column} AS "${field}"`),
	...Object.entries(listColumns).map(([field, column]) => `${column} AS "${field}"`),
	`roles AS "Roles"`,
	`cloaked AS "Cloaked"`,
	`created_time AS "CreatedTime"`,
	`updated_time AS "UpdatedTime"`,
].join(", ");

const accountColumns = `${recordColumns}, password_hash AS "PasswordHash", digest_ha1 AS "DigestHa1"`;

/** What other services show next to their records: no credentials, no profile text they never show. */
const profileColumns = `id AS "Id", first_name AS "FirstName", last_name AS "LastName", job_title AS "JobTitle", default_venue_id AS "DefaultVenueId"`;

/** The case-folded key that makes "Ann@x.org" and "ann@x.org" one address ("" and undefined pass through). */
export const keyOf = (value: string | undefined) => value?.toLowerCase();

const emptyToNull = (value: string | undefined) => (value === undefined || value === "" ? null : value);

const listText = (list: string[] | undefined) => (list === undefined ? null : JSON.stringify(list));

/** Every column of a new user, with the value it takes. */
const insertColumns: Array<[string, (user: NewUser) => SqlValue]> = [
	["id", u => u.Id],
	["user_name", u => emptyToNull(u.UserName)],
	["user_name_key", u => emptyToNull(keyOf(u.UserName))],
	["email", u => emptyToNull(u.Email)],
	["email_key", u => emptyToNull(keyOf(u.Email))],
	["display_name", u => emptyToNull(u.DisplayName)],
	...Object.entries(textColumns).map(([field, column]): [string, (user: NewUser) => SqlValue] => [
		column,
		u => emptyToNull(u[field as keyof typeof textColumns]),
	]),
	...Object.entries(listColumns).map(([field, column]): [string, (user: NewUser) => SqlValue] => [
		column,
		u => listText(u[field as keyof typeof listColumns]),
	]),
	["password_hash", u => emptyToNull(u.PasswordHash)],
	["digest_ha1", u => emptyToNull(u.DigestHa1)],
	["roles", u => JSON.stringify(u.Roles ?? [])],
	["cloaked", u => u.Cloaked ?? false],
	["created_time", u => u.CreatedTime],
	["updated_time", u => u.UpdatedTime],
];

const insertStatement = (onConflict: string) =>
	`INSERT INTO users (${insertColumns.map(([column]) => column).join(", ")}) VALUES (${insertColumns.map((_, i) => `$${i + 1}`).join(", ")}) ${onConflict} RETURNING ${recordColumns}`;

const insertUser = insertStatement("");
const importUser = insertStatement("ON CONFLICT DO NOTHING");

/** The text columns an update may change; its parameter is null to keep the value, "" to clear it, or the new value. */
const updateColumns: Array<[string, (changes: UserChanges) => string | undefined]> = [
	["user_name", c => c.UserName],
	["user_name_key", c => keyOf(c.UserName)],
	["email", c => c.Email],
	["email_key", c => keyOf(c.Email)],
	...Object.entries(textColumns).map(([field, column]): [string, (changes: UserChanges) => string | undefined] => [
		column,
		c => c[field as keyof typeof textColumns],
	]),
	...Object.entries(listColumns).map(([field, column]): [string, (changes: UserChanges) => string | undefined] => [
		column,
		c => listText(c[field as keyof typeof listColumns]) ?? undefined,
	]),
];

/** One statement whatever the fields given: concurrent updates of different fields never undo one another. */
const updateUser = (() => {
	const keepClearOrSet = updateColumns.map(([column], i) => {
		const value = `CAST($${i + 2} AS TEXT)`;
		return `${column} = CASE WHEN ${value} IS NULL THEN ${column} WHEN ${value} = '' THEN NULL ELSE ${value} END`;
	});
	const cloaked = updateColumns.length + 2;
	return `UPDATE users SET ${keepClearOrSet.join(", ")}, cloaked = COALESCE(CAST($${cloaked} AS INTEGER), cloaked), updated_time = $${cloaked + 1} WHERE id = $1 RETURNING ${recordColumns}`;
})();

/** A row as read: lists and roles parsed, Cloaked a boolean, empty columns left out. */
function toUser<T extends UserRow>(row: T): T {
	// Cast: the row comes typed as the record it becomes, but holds JSON text and 0/1 until decoded here, in place.
	const record = present(row) as unknown as Record<string, unknown>;
	for (const field of [...Object.keys(listColumns), "Roles"])
		if (typeof record[field] === "string") record[field] = JSON.parse(record[field]);
	record.Roles ??= [];
	record.Cloaked = Number(record.Cloaked) === 1;
	return row;
}

/**
 * The request field a unique violation is about: each unique index names its key column (on MongoDB too, in the
 * message).
 */
export function duplicateField(err: unknown): "UserName" | "Email" | undefined {
	const { message, constraint } = err as { message?: string; constraint?: string };
	const where = `${constraint ?? ""} ${message ?? ""}`;
	if (where.includes("email_key")) return "Email";
	if (where.includes("user_name_key")) return "UserName";
	return undefined;
}

/** Users: profiles, the unique case-folded user name and e-mail address, and credentials. */
export class UsersRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** Adds a user; a user name or e-mail address already taken (in any case) is a 409 naming the field. */
	async create(user: NewUser): Promise<UserRow> {
		try {
			const row = await this.db.get<UserRow>(
				insertUser,
				insertColumns.map(([, value]) => value(user)),
			);
			return toUser(row!);
		} catch (err) {
			if (isUniqueViolation(err)) throw failures.alreadyExists(duplicateField(err));
			throw err;
		}
	}

	/** A user as the former store held it; nothing when its id, user name or e-mail address is there already. */
	async importUser(user: NewUser): Promise<boolean> {
		return !!(await this.db.get(
			importUser,
			insertColumns.map(([, value]) => value(user)),
		));
	}

	async find(id: string): Promise<UserRow | undefined> {
		const row = await this.db.get<UserRow>(`SELECT ${recordColumns} FROM users WHERE id = $1`, [id]);
		return row && toUser(row);
	}

	/** A page of users in creation order, as `viewer` may see them; the cursor is a user's Id. */
	async page(page: Page, viewer: Viewer): Promise<UserRow[]> {
		if (page.Limit === 0) return [];
		// Admins see everyone: no condition at all, so that the page reads the index in order and stops.
		const visibleAt = (n: number) => (viewer.admin ? [] : [`(cloaked = 0 OR id = $${n})`]);
		const visibleParams = viewer.admin ? [] : [viewer.userId ?? ""];
		const anchor = await anchorOf(
			this.db,
			page,
			`SELECT created_time AS time, id FROM users WHERE ${["id = $1", ...visibleAt(2)].join(" AND ")}`,
			visibleParams,
		);
		const conditions = [
			...visibleAt(3),
			...(anchor ? [afterAnchor("created_time", "id", 3 + visibleParams.length)] : []),
		];
		const rows = await this.db.all<UserRow>(
			`SELECT ${recordColumns} FROM users ${conditions.length ? `WHERE ${conditions.join(" AND ")}` : ""} ORDER BY created_time, id LIMIT $1 OFFSET $2`,
			[page.Limit, page.Offset, ...visibleParams, ...(anchor ? anchorParams(anchor) : [])],
		);
		return rows.map(toUser);
	}

	/** The names other services show next to their records, for these users only. */
	async profiles(ids: string[]): Promise<Profile[]> {
		if (ids.length === 0) return [];
		const rows = await this.db.all<Profile>(
			`SELECT ${profileColumns} FROM users WHERE ${this.db.dialect.anyOf("id", "$1")}`,
			[this.db.dialect.listParam(ids)],
		);
		return rows.map(present);
	}

	/**
	 * Applies `changes` ("" clears a field): the updated user, or undefined when there is none; a taken e-mail address is
	 * a 409.
	 */
	async update(id: string, changes: UserChanges, now: number): Promise<UserRow | undefined> {
		const params: SqlValue[] = [
			id,
			...updateColumns.map(([, value]) => value(changes) ?? null),
			changes.Cloaked ?? null,
			now,
		];
		try {
			const row = await this.db.get<UserRow>(updateUser, params);
			return row && toUser(row);
		} catch (err) {
			if (isUniqueViolation(err)) throw failures.alreadyExists(duplicateField(err));
			throw err;
		}
	}

	async remove(id: string): Promise<boolean> {
		return (await this.db.run("DELETE FROM users WHERE id = $1", [id])) > 0;
	}

	/**
	 * Starts deleting an account, in one transaction: no password signs in to it any more, it leaves other users'
	 * lists, and it is recorded as under way. False when there is no such user.
	 */
	async beginDeletion(id: string, now: number): Promise<boolean> {
		return this.db.transaction(async tx => {
			const marked = await tx.run(
				"UPDATE users SET password_hash = NULL, digest_ha1 = NULL, cloaked = 1, updated_time = $2 WHERE id = $1",
				[id, now],
			);
			if (marked === 0) return false;
			await tx.run(
				"INSERT INTO account_deletions (user_id, attempted_time) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET attempted_time = $2",
				[id, now],
			);
			return true;
		});
	}

	/** Deletions under way last attempted before `time` (a deletion cut off, or whose domains were out of reach). */
	async deletionsBefore(time: number): Promise<string[]> {
		const rows = await this.db.all<{ id: string }>(
			"SELECT user_id AS id FROM account_deletions WHERE attempted_time < $1",
			[time],
		);
		return rows.map(row => row.id);
	}

	async touchDeletion(id: string, now: number): Promise<void> {
		await this.db.run("UPDATE account_deletions SET attempted_time = $2 WHERE user_id = $1", [id, now]);
	}

	/** Ends a deletion whose every domain has forgotten the user: the account, then its record, in one transaction. */
	async finishDeletion(id: string): Promise<void> {
		await this.db.transaction(async tx => {
			await tx.run("DELETE FROM users WHERE id = $1", [id]);
			await tx.run("DELETE FROM account_deletions WHERE user_id = $1", [id]);
		});
	}

	/**
	 * The account whose user name, or else e-mail address, is `login` (any case), with its credentials.
	 * A login with "@" is an e-mail address first: user names have none now, and an older one that has
	 * cannot take over the sign-in of the address's owner.
	 */
	async account(login: string): Promise<AccountRow | undefined> {
		const key = login.toLowerCase();
		const byName = () => this.db.get<AccountRow>(`SELECT ${accountColumns} FROM users WHERE user_name_key = $1`, [key]);
		const byEmail = () => this.db.get<AccountRow>(`SELECT ${accountColumns} FROM users WHERE email_key = $1`, [key]);
		const row = key.includes("@") ? ((await byEmail()) ?? (await byName())) : ((await byName()) ?? (await byEmail()));
		return row && toUser(row);
	}

	/** A user's account with its credentials, by id. */
	async accountById(id: string): Promise<AccountRow | undefined> {
		const row = await this.db.get<AccountRow>(`SELECT ${accountColumns} FROM users WHERE id = $1`, [id]);
		return row && toUser(row);
	}

	/**
	 * Replaces a password hash by the same password's at a higher cost, only if it is still `previous`: whether it did.
	 */
	async replaceHash(id: string, previous: string, next: string): Promise<boolean> {
		return (
			(await this.db.run("UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2", [
				id,
				previous,
				next,
			])) > 0
		);
	}

	/**
	 * Replaces a user's credentials (a new password, or the same one hashed at a higher cost): whether the user exists.
	 */
	async setCredentials(id: string, passwordHash: string, digestHa1: string | undefined): Promise<boolean> {
		return (
			(await this.db.run("UPDATE users SET password_hash = $2, digest_ha1 = $3 WHERE id = $1", [
				id,
				passwordHash,
				digestHa1 ?? null,
			])) > 0
		);
	}

	/**
	 * Records that a Digest nonce was answered with count `nc`: true when `nc` is higher than every count
	 * it was answered with before (in one statement: of two replays at once, one wins). Nonces older than
	 * `forgetBefore` cannot be answered any more: their rows go.
	 */
	async useDigestNonce(nonce: string, nc: number, now: number, forgetBefore: number): Promise<boolean> {
		await this.db.run("DELETE FROM digest_nonces WHERE first_used < $1", [forgetBefore]);
		const counted = await this.db.get(
			"INSERT INTO digest_nonces (nonce, nc, first_used) VALUES ($1, $2, $3) ON CONFLICT (nonce) DO UPDATE SET nc = excluded.nc WHERE digest_nonces.nc < excluded.nc RETURNING nonce",
			[nonce, nc, now],
		);
		return !!counted;
	}
}
