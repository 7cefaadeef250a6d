import { SqlDatabase } from "../../shared/persistence/sql/database";
import { present } from "../../shared/persistence/sql/rows";
import { RefreshTokenRow, SigningKeyRow } from "./tokens.rows";

const refreshTokenColumns = `id AS "Id", session_key AS "SessionKey", created_time AS "CreatedTime",
	expires_time AS "ExpiresTime", used_time AS "UsedTime"`;

const signingKeyColumns = `kid AS "Kid", sealed_private_key AS "SealedPrivateKey", public_jwk AS "PublicJwk",
	created_time AS "CreatedTime"`;

/** The refresh tokens of sessions, and the keys that sign bearer tokens. */
export class TokensRepository {
	constructor(private readonly db: SqlDatabase) {}

	async addRefreshToken(row: RefreshTokenRow): Promise<void> {
		await this.db.run(
			"INSERT INTO refresh_tokens (id, session_key, created_time, expires_time, used_time) VALUES ($1, $2, $3, $4, $5)",
			[row.Id, row.SessionKey, row.CreatedTime, row.ExpiresTime, row.UsedTime ?? null],
		);
	}

	/**
	 * Marks a token used at `now` unless it was already: `firstUse` says whether this call marked it (of two at once,
	 * exactly one does). Nothing when there is no such token.
	 */
	async useRefreshToken(id: string, now: number): Promise<{ row: RefreshTokenRow; firstUse: boolean } | undefined> {
		const marked = await this.db.get<RefreshTokenRow>(
			`UPDATE refresh_tokens SET used_time = $2 WHERE id = $1 AND used_time IS NULL RETURNING ${refreshTokenColumns}`,
			[id, now],
		);
		if (marked) return { row: present(marked), firstUse: true };
		const found = await this.db.get<RefreshTokenRow>(
			`SELECT ${refreshTokenColumns} FROM refresh_tokens WHERE id = $1`,
			[id],
		);
		return found && { row: present(found), firstUse: false };
	}

	async removeRefreshTokensOf(sessionKeys: readonly string[]): Promise<void> {
		if (sessionKeys.length === 0) return;
		await this.db.run(`DELETE FROM refresh_tokens WHERE ${this.db.dialect.anyOf("session_key", "$1")}`, [
			this.db.dialect.listParam(sessionKeys),
		]);
	}

	/** Deletes the tokens ended by `now`: how many. */
	async removeExpiredRefreshTokens(now: number): Promise<number> {
		return this.db.run("DELETE FROM refresh_tokens WHERE expires_time <= $1", [now]);
	}

	/** Every signing key, newest first. */
	async signingKeys(): Promise<SigningKeyRow[]> {
		return (
			await this.db.all<SigningKeyRow>(
				`SELECT ${signingKeyColumns} FROM signing_keys ORDER BY created_time DESC, kid DESC`,
			)
		).map(row => present(row));
	}

	/** Adds a key; nothing when its kid is there already (another process made it). */
	async addSigningKey(row: SigningKeyRow): Promise<void> {
		await this.db.run(
			`INSERT INTO signing_keys (kid, sealed_private_key, public_jwk, created_time) VALUES ($1, $2, $3, $4)
			ON CONFLICT (kid) DO NOTHING`,
			[row.Kid, row.SealedPrivateKey, row.PublicJwk, row.CreatedTime],
		);
	}

	/** Deletes the keys made before `time`: how many. */
	async removeSigningKeysBefore(time: number): Promise<number> {
		return this.db.run("DELETE FROM signing_keys WHERE created_time < $1", [time]);
	}
}
