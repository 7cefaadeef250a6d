import { Collection } from "mongodb";
import { Page } from "../../shared/persistence/sql/paging";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { pageOfList } from "../../shared/persistence/mongo/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { MediaKind, MediaRepository, MediaRow } from "./media.repository";
import { definedFields } from "../../shared/persistence/mongo/documents";

interface MediaDocument {
	_id: string;
	kind: MediaKind;
	user_id?: string;
	owner_id?: string;
	post_id?: string;
	content_type: string;
	size: number;
	etag: string;
	created_time: number;
}

export const mediaMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "avatars by their user, pictures by their owner, in the order made",
		apply: async db => {
			// The kind is in the key (rather than a partial index's filter), so that both lists seek it on any server.
			await db
				.collection("media_records")
				.createIndex({ user_id: 1, kind: 1, created_time: 1, _id: 1 }, { name: "media_avatars_by_user" });
			await db
				.collection("media_records")
				.createIndex({ owner_id: 1, kind: 1, created_time: 1, _id: 1 }, { name: "media_pictures_by_owner" });
		},
	},
];

const documentOf = (m: MediaRow): MediaDocument =>
	definedFields({
		_id: m.Id,
		kind: m.Kind,
		user_id: m.UserId,
		owner_id: m.OwnerId,
		post_id: m.PostId,
		content_type: m.ContentType,
		size: m.Size,
		etag: m.ETag,
		created_time: m.CreatedTime,
	});
const toMedia = (d: MediaDocument): MediaRow =>
	definedFields({
		Id: d._id,
		Kind: d.kind,
		UserId: d.user_id,
		OwnerId: d.owner_id,
		PostId: d.post_id,
		ContentType: d.content_type,
		Size: d.size,
		ETag: d.etag,
		CreatedTime: d.created_time,
	});

/**
 * The records of avatars and pictures on MongoDB (their bytes are in the blob store): what `MediaRepository` does on
 * SQL.
 */
export class MongoMediaRepository implements RepositoryContract<MediaRepository> {
	private readonly media: Collection<MediaDocument>;

	constructor(private readonly store: MongoStore) {
		this.media = store.collection<MediaDocument>("media_records");
	}

	async create(media: MediaRow): Promise<MediaRow> {
		await this.media.insertOne(documentOf(media));
		return definedFields({ ...media });
	}

	async importMedia(media: MediaRow): Promise<void> {
		await this.store.insertOnce(this.media, documentOf(media));
	}

	async find(id: string): Promise<MediaRow | undefined> {
		const doc = await this.media.findOne({ _id: id });
		return doc ? toMedia(doc) : undefined;
	}

	async currentAvatar(userId: string): Promise<MediaRow | undefined> {
		const [latest] = await this.media
			.find({ user_id: userId, kind: "Avatar" })
			.sort({ created_time: -1, _id: -1 })
			.limit(1)
			.toArray();
		return latest ? toMedia(latest) : undefined;
	}

	async picturesOf(ownerId: string, page: Page): Promise<MediaRow[]> {
		return (await pageOfList(this.media, page, { owner_id: ownerId, kind: "Picture" }, { time: "created_time" })).map(
			toMedia,
		);
	}

	/** Only the records found are removed, so that the caller removes the blob of every one of them. */
	async removeAllOf(userId: string): Promise<string[]> {
		const found = await this.media
			.find(
				{
					$or: [
						{ user_id: userId, kind: "Avatar" },
						{ owner_id: userId, kind: "Picture" },
					],
				},
				{ projection: { _id: 1 } },
			)
			.toArray();
		const ids = found.map(doc => doc._id);
		if (ids.length) await this.media.deleteMany({ _id: { $in: ids } });
		return ids;
	}
}
