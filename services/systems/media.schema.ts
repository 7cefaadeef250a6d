import { Migration } from "../../shared/persistence/sql/migrations";
import { postgresBlobTable } from "../../shared/persistence/blobs.postgres";

/**
 * The media domain's tables: the records of avatars and pictures (their bytes are kept apart, in
 * the blob store), and on PostgreSQL the blob table itself.
 */
export const mediaMigrations: Migration[] = [
	{
		version: 1,
		description: "media_records, and plaza_blobs on PostgreSQL",
		statements: dialect => [
			"CREATE TABLE media_records (id TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('Avatar', 'Picture')), user_id TEXT, owner_id TEXT, post_id TEXT, content_type TEXT NOT NULL, size INTEGER NOT NULL, etag TEXT NOT NULL, created_time BIGINT NOT NULL)",
			// Avatars are found by their user (the latest one), pictures by their owner (in order).
			"CREATE INDEX media_avatars_by_user ON media_records (user_id, created_time, id) WHERE kind = 'Avatar'",
			"CREATE INDEX media_pictures_by_owner ON media_records (owner_id, created_time, id) WHERE kind = 'Picture'",
			...(dialect.name === "postgres" ? postgresBlobTable : []),
		],
	},
];
