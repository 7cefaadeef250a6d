import { LegacyImport } from "../../shared/persistence/legacy";
import { MediaRepository } from "./media.repository";

const optional = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

/** The former NeDB collection of the media service (records only: the blob files stay where they are), written idempotently. */
export const mediaLegacy: LegacyImport<MediaRepository> = {
	media: (repo, doc) =>
		repo.importMedia({
			Id: doc._id,
			Kind: doc.Kind === "Avatar" ? "Avatar" : "Picture",
			UserId: optional(doc.UserId),
			OwnerId: optional(doc.OwnerId),
			PostId: optional(doc.PostId),
			ContentType: String(doc.ContentType),
			Size: Number(doc.Size),
			ETag: String(doc.ETag),
			CreatedTime: Number(doc.CreatedTime),
		}),
};
