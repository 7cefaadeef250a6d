import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { pageOf, toRecord } from "../../shared/persistence/documents";
import { BlobStore, createBlobStore } from "../../shared/persistence/blobs";
import { Doc } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { checkImage } from "./images";
import { readCall } from "../../shared/calls";

type Page = { Offset: number; Limit: number };
type MediaStores = CollectionsMethods<"media">;
type MediaThis = Service & MediaStores & MediaVars & MediaMethods;

interface MediaVars {
	blobs: BlobStore;
}

interface MediaMethods {
	store(ctx: Context, kind: "Avatar" | "Picture", fields: Record<string, unknown>, contentType: string, data: string): Promise<Record<string, unknown>>;
	mediaDoc(id: string, kind?: string): Promise<Doc>;
	content(ctx: Context, doc: Doc): Promise<Record<string, unknown>>;
}

interface UploadInput {
	ContentType: string;
	Data: string;
}

/** The record of an avatar or picture; its bytes are at its Url. */
const recordOf = (doc: Doc) => ({ ...toRecord(doc), Url: `/media/${doc._id}` });

/**
 * Avatars and pictures: images checked against their declared type, bytes kept in the blob store
 * apart from their records, served back with their type, an ETag and long caching.
 */
export function mediaService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, MediaMethods, MediaStores & MediaVars> = {
		name: "media",
		mixins: [collectionsMixin(config.store, { media: [{ field: "UserId" }, { field: "OwnerId" }] })],

		created(this: MediaThis) {
			this.blobs = createBlobStore(config.store, this.logger);
		},

		async started(this: MediaThis) {
			await this.blobs.open();
		},

		async stopped(this: MediaThis) {
			await this.blobs.close();
		},

		actions: {
			async createAvatar(this: MediaThis, ctx: Context<{ UserId: string } & UploadInput>) {
				return this.store(ctx, "Avatar", { UserId: ctx.params.UserId }, ctx.params.ContentType, ctx.params.Data);
			},

			async findAvatar(this: MediaThis, ctx: Context<{ Id: string }>) {
				return recordOf(await this.mediaDoc(ctx.params.Id, "Avatar"));
			},

			async currentAvatar(this: MediaThis, ctx: Context<{ UserId: string }>) {
				const [latest] = await this.stores.media.find({ query: { UserId: ctx.params.UserId, Kind: "Avatar" }, sort: ["-CreatedTime", "-_id"], limit: 1 });
				if (!latest) throw failures.notFound(`An avatar of user ${ctx.params.UserId}`);
				return this.content(ctx, latest);
			},

			async createPicture(this: MediaThis, ctx: Context<{ OwnerId: string; PostId?: string } & UploadInput>) {
				// A picture for a post is the post author's to add: the posts service says whether the caller is.
				if (ctx.params.PostId) await ctx.call("posts.checkAuthor", { postId: ctx.params.PostId });
				return this.store(ctx, "Picture", { OwnerId: ctx.params.OwnerId, PostId: ctx.params.PostId }, ctx.params.ContentType, ctx.params.Data);
			},

			async findPicture(this: MediaThis, ctx: Context<{ Id: string }>) {
				const doc = await this.mediaDoc(ctx.params.Id, "Picture");
				if (doc.PostId) await ctx.call("posts.checkVisible", { postId: doc.PostId });
				return recordOf(doc);
			},

			async picturesOf(this: MediaThis, ctx: Context<{ OwnerId: string } & Page>) {
				// Pictures of posts the caller cannot see are left out, as those posts are.
				const docs = await pageOf(this.stores.media, { OwnerId: ctx.params.OwnerId, Kind: "Picture" }, ctx.params);
				const postIds = [...new Set(docs.map(d => d.PostId).filter(Boolean).map(String))];
				const visible = new Set(postIds.length ? await readCall<string[], { postIds: string[] }>(ctx, "posts.visibleAmong", { postIds }) : []);
				return docs.filter(d => !d.PostId || visible.has(String(d.PostId))).map(recordOf);
			},

			async file(this: MediaThis, ctx: Context<{ Id: string }>) {
				const doc = await this.mediaDoc(ctx.params.Id);
				if (doc.PostId) await ctx.call("posts.checkVisible", { postId: doc.PostId });
				return this.content(ctx, doc);
			},
		},

		methods: {
			/** Checks the image, then keeps the bytes before the record: a record never points at nothing. */
			async store(this: MediaThis, _ctx: Context, kind: "Avatar" | "Picture", fields: Record<string, unknown>, contentType: string, data: string) {
				const image = checkImage(contentType, data);
				const doc: Doc = { _id: newGuid(), Kind: kind, ...fields, ContentType: image.contentType, Size: image.bytes.length, ETag: image.etag, CreatedTime: Date.now() };
				await this.blobs.put(doc._id, image.bytes);
				try {
					await this.stores.media.insert(doc);
				} catch (err) {
					await this.blobs.remove(doc._id);
					throw err;
				}
				return recordOf(doc);
			},

			async mediaDoc(this: MediaThis, id: string, kind?: string) {
				const doc = await this.stores.media.findById(id);
				if (!doc || (kind && doc.Kind !== kind)) throw failures.notFound(`${kind ?? "Media"} ${id}`);
				return doc;
			},

			async content(this: MediaThis, _ctx: Context, doc: Doc) {
				const bytes = await this.blobs.get(doc._id);
				if (!bytes) throw failures.notFound(`The bytes of ${doc._id}`);
				return { Id: doc._id, ContentType: doc.ContentType, Size: bytes.length, ETag: doc.ETag, Data: bytes.toString("base64") };
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
