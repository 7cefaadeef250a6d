import { SqlDatabase, SqlValue } from "../../shared/persistence/sql/database";
import { Page, pageOf } from "../../shared/persistence/sql/paging";
import { present } from "../../shared/persistence/sql/rows";

export type MediaKind = "Avatar" | "Picture";

/**
 * An avatar (UserId) or a picture (OwnerId, PostId when it belongs to a post); its bytes are in the blob store under
 * its Id.
 */
export interface MediaRow {
	Id: string;
	Kind: MediaKind;
	UserId?: string;
	OwnerId?: string;
	PostId?: string;
	ContentType: string;
	Size: number;
	ETag: string;
	CreatedTime: number;
}

const mediaColumns =
	'id AS "Id", kind AS "Kind", user_id AS "UserId", owner_id AS "OwnerId", post_id AS "PostId", content_type AS "ContentType", size AS "Size", etag AS "ETag", created_time AS "CreatedTime"';
const insertMedia =
	"INSERT INTO media_records (id, kind, user_id, owner_id, post_id, content_type, size, etag, created_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

const values = (m: MediaRow): SqlValue[] => [
	m.Id,
	m.Kind,
	m.UserId,
	m.OwnerId,
	m.PostId,
	m.ContentType,
	m.Size,
	m.ETag,
	m.CreatedTime,
];

/** The records of avatars and pictures. */
export class MediaRepository {
	constructor(private readonly db: SqlDatabase) {}

	async create(media: MediaRow): Promise<MediaRow> {
		await this.db.run(insertMedia, values(media));
		return present({ ...media });
	}

	/** A record as the former store held it; nothing when it is there already. */
	async importMedia(media: MediaRow): Promise<void> {
		await this.db.run(`${insertMedia} ON CONFLICT (id) DO NOTHING`, values(media));
	}

	async find(id: string): Promise<MediaRow | undefined> {
		const row = await this.db.get<MediaRow>(`SELECT ${mediaColumns} FROM media_records WHERE id = $1`, [id]);
		return row && present(row);
	}

	/** A user's latest avatar. */
	async currentAvatar(userId: string): Promise<MediaRow | undefined> {
		const row = await this.db.get<MediaRow>(
			`SELECT ${mediaColumns} FROM media_records WHERE user_id = $1 AND kind = 'Avatar' ORDER BY created_time DESC, id DESC LIMIT 1`,
			[userId],
		);
		return row && present(row);
	}

	/** A page of the pictures an owner uploaded, oldest first; the cursor is a picture's Id. */
	async picturesOf(ownerId: string, page: Page): Promise<MediaRow[]> {
		const list = {
			table: "media_records",
			columns: mediaColumns,
			owner: "owner_id",
			where: "kind = 'Picture'",
			time: "created_time",
			tiebreak: "id",
		};
		return (await pageOf<MediaRow>(this.db, list, ownerId, page)).map(present);
	}

	/** Removes a user's avatars and the pictures they own (an account deleted): the ids of the records removed. */
	async removeAllOf(userId: string): Promise<string[]> {
		const rows = await this.db.all<{ id: string }>(
			`DELETE FROM media_records WHERE (kind = 'Avatar' AND user_id = $1) OR (kind = 'Picture' AND owner_id = $1)
			 RETURNING id`,
			[userId],
		);
		return rows.map(row => row.id);
	}
}
