import { SqlDatabase } from "../../shared/persistence/sql/database";
import { present } from "../../shared/persistence/sql/rows";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { TokensRepository } from "./tokens.repository";

/** A session: keyed by the SHA-256 of its token; who it stands for as of sign-in; when it ends unless used. */
export interface SessionRow {
	Id: string;
	UserId: string;
	UserName: string;
	DisplayName?: string;
	Roles: string[];
	Persistent: boolean;
	TtlMs: number;
	CreatedTime: number;
	SlidTime: number;
	ExpiresTime: number;
}

const sessionColumns = `id AS "Id", user_id AS "UserId", user_name AS "UserName", display_name AS "DisplayName", roles AS "Roles", persistent AS "Persistent",
	ttl_ms AS "TtlMs", created_time AS "CreatedTime", slid_time AS "SlidTime", expires_time AS "ExpiresTime"`;

const insertSession =
	"INSERT INTO sessions (id, user_id, user_name, display_name, roles, persistent, ttl_ms, created_time, slid_time, expires_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

function toSession(row: SessionRow): SessionRow {
	const session = present(row);
	session.Roles = typeof session.Roles === "string" ? (JSON.parse(session.Roles) as string[]) : [];
	session.Persistent = Number(session.Persistent) === 1;
	return session;
}

/** Sessions by key, with their sliding expiry. */
export class SessionsRepository {
	/** The bearer tokens' refresh tokens and signing keys, in the same database. */
	readonly tokens: RepositoryContract<TokensRepository>;

	constructor(private readonly db: SqlDatabase) {
		this.tokens = new TokensRepository(db);
	}

	async open(session: SessionRow): Promise<void> {
		await this.db.run(insertSession, this.values(session));
	}

	/** A session as the former store held it; nothing when it is there already. */
	async importSession(session: SessionRow): Promise<void> {
		await this.db.run(`${insertSession} ON CONFLICT (id) DO NOTHING`, this.values(session));
	}

	/** The session of this key, expired or not (the caller decides). */
	async find(key: string): Promise<SessionRow | undefined> {
		const row = await this.db.get<SessionRow>(`SELECT ${sessionColumns} FROM sessions WHERE id = $1`, [key]);
		return row && toSession(row);
	}

	/** Moves a session's end to `now` + its time to live; false when it is gone. */
	async slide(key: string, now: number): Promise<boolean> {
		return (
			(await this.db.run("UPDATE sessions SET slid_time = $2, expires_time = $2 + ttl_ms WHERE id = $1", [key, now])) >
			0
		);
	}

	async remove(key: string): Promise<boolean> {
		return (await this.db.run("DELETE FROM sessions WHERE id = $1", [key])) > 0;
	}

	/** Deletes every session of a user: the keys of those there were. */
	async removeAllOf(userId: string, except?: string): Promise<string[]> {
		return (
			await this.db.all<{ id: string }>("DELETE FROM sessions WHERE user_id = $1 AND id <> $2 RETURNING id", [
				userId,
				except ?? "",
			])
		).map(row => row.id);
	}

	/** Deletes the sessions ended by `now`: their keys. */
	async removeExpired(now: number): Promise<string[]> {
		return (await this.db.all<{ id: string }>("DELETE FROM sessions WHERE expires_time <= $1 RETURNING id", [now])).map(
			row => row.id,
		);
	}

	private values(s: SessionRow) {
		return [
			s.Id,
			s.UserId,
			s.UserName,
			s.DisplayName ?? null,
			JSON.stringify(s.Roles),
			s.Persistent,
			s.TtlMs,
			s.CreatedTime,
			s.SlidTime,
			s.ExpiresTime,
		];
	}
}
