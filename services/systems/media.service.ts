import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { BlobStore, createBlobStore } from "../../shared/persistence/blobs";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { checkImage } from "./images";
import { readCall } from "../../shared/calls";
import { MediaKind, MediaRepository, MediaRow } from "./media.repository";
import { mediaMigrations } from "./media.schema";
import { mediaLegacy } from "./media.legacy";
import { MongoMediaRepository, mediaMongoMigrations } from "./media.mongo";
import { typedService } from "../../shared/implement";
import { systemsOperations } from "../../shared/catalogue";
import { changed } from "../../shared/changes/changes";

interface MediaVars {
	blobs: BlobStore;
}

interface MediaMethods {
	store(
		ctx: Context,
		kind: MediaKind,
		fields: Pick<MediaRow, "UserId" | "OwnerId" | "PostId">,
		contentType: string,
		data: string,
	): Promise<MediaRecord>;
	media(id: string, kind?: MediaKind): Promise<MediaRow>;
	content(media: MediaRow): Promise<Record<string, unknown>>;
}

type MediaRecord = MediaRow & { Url: string };

/** The record of an avatar or picture; its bytes are at its Url. */
const recordOf = (media: MediaRow): MediaRecord => ({ ...media, Url: `/media/${media.Id}` });

const { implement, define } = typedService<
	MediaMethods,
	WithRepository<RepositoryContract<MediaRepository>> & MediaVars
>();

/**
 * Avatars and pictures: images checked against their declared type, bytes kept in the blob store
 * apart from their records, served back with their type, an ETag and long caching.
 */
export function mediaService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "media",
		mixins: [
			repositoryMixin<RepositoryContract<MediaRepository>>(config.store, {
				domain: "media",
				migrations: mediaMigrations,
				create: db => new MediaRepository(db),
				mongo: { migrations: mediaMongoMigrations, create: store => new MongoMediaRepository(store) },
				legacy: mediaLegacy,
			}),
		],

		created() {
			this.blobs = createBlobStore(config.store, this.db);
		},

		async started() {
			await this.blobs.open();
		},

		async stopped() {
			await this.blobs.close();
		},

		actions: {
			...implement(systemsOperations.CreateAvatar, async function (ctx) {
				return this.store(ctx, "Avatar", { UserId: ctx.params.UserId }, ctx.params.ContentType, ctx.params.Data);
			}),

			...implement(systemsOperations.FindAvatar, async function (ctx) {
				return recordOf(await this.media(ctx.params.Id, "Avatar"));
			}),

			...implement(systemsOperations.UserAvatar, async function (ctx) {
				const latest = await this.repo.currentAvatar(ctx.params.UserId);
				if (!latest) throw failures.notFound(`An avatar of user ${ctx.params.UserId}`);
				return this.content(latest);
			}),

			...implement(systemsOperations.CreatePicture, async function (ctx) {
				// A picture for a post is the post author's to add: the posts service says whether the caller is.
				if (ctx.params.PostId) await ctx.call("posts.checkAuthor", { postId: ctx.params.PostId });
				return this.store(
					ctx,
					"Picture",
					{ OwnerId: ctx.params.OwnerId, PostId: ctx.params.PostId },
					ctx.params.ContentType,
					ctx.params.Data,
				);
			}),

			...implement(systemsOperations.FindPicture, async function (ctx) {
				const picture = await this.media(ctx.params.Id, "Picture");
				if (picture.PostId) await ctx.call("posts.checkVisible", { postId: picture.PostId });
				return recordOf(picture);
			}),

			...implement(systemsOperations.UserPictures, async function (ctx) {
				// Pictures of posts the caller cannot see are left out, as those posts are.
				const pictures = await this.repo.picturesOf(ctx.params.OwnerId, ctx.params);
				const postIds = [...new Set(pictures.flatMap(p => (p.PostId ? [p.PostId] : [])))];
				const visible = new Set(
					postIds.length ? await readCall<string[], { postIds: string[] }>(ctx, "posts.visibleAmong", { postIds }) : [],
				);
				return pictures.filter(p => !p.PostId || visible.has(p.PostId)).map(recordOf);
			}),

			...implement(systemsOperations.MediaFile, async function (ctx) {
				const media = await this.media(ctx.params.Id);
				if (media.PostId) await ctx.call("posts.checkVisible", { postId: media.PostId });
				return this.content(media);
			}),

			/**
			 * Internal: removes a deleted account's avatars and the pictures it owns, records then bytes, so that no record
			 * is left pointing at nothing; again, or with nothing left, is fine.
			 */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					const ids = await this.repo.removeAllOf(ctx.params.userId);
					// Bytes a crash or failure leaves here are named by no record: garbage, never served.
					for (const id of ids)
						await this.blobs.remove(id).catch((err: unknown) => this.logger.warn(`The bytes of ${id} were left:`, err));
					// Stated even when nothing was left: a first call cut off before stating may have removed it.
					await changed(ctx, { domain: "media" });
					return ids.length;
				},
			},
		},

		methods: {
			/** Checks the image, then keeps the bytes before the record: a record never points at nothing. */
			async store(
				ctx: Context,
				kind: MediaKind,
				fields: Pick<MediaRow, "UserId" | "OwnerId" | "PostId">,
				contentType: string,
				data: string,
			) {
				const image = checkImage(contentType, data);
				const media: MediaRow = {
					Id: newGuid(),
					Kind: kind,
					...fields,
					ContentType: image.contentType,
					Size: image.bytes.length,
					ETag: image.etag,
					CreatedTime: Date.now(),
				};
				await this.blobs.put(media.Id, image.bytes);
				try {
					const record = recordOf(await this.repo.create(media));
					await changed(ctx, { domain: "media" });
					return record;
				} catch (err) {
					await this.blobs.remove(media.Id);
					throw err;
				}
			},

			async media(id: string, kind?: MediaKind) {
				const media = await this.repo.find(id);
				if (!media || (kind && media.Kind !== kind)) throw failures.notFound(`${kind ?? "Media"} ${id}`);
				return media;
			},

			async content(media: MediaRow) {
				const bytes = await this.blobs.get(media.Id);
				if (!bytes) throw failures.notFound(`The bytes of ${media.Id}`);
				return {
					Id: media.Id,
					ContentType: media.ContentType,
					Size: bytes.length,
					ETag: media.ETag,
					Data: bytes.toString("base64"),
				};
			},
		},
	});
}
