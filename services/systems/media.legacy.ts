import { LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { MediaRepository } from "./media.repository";

/**
 * The former NeDB collection of the media service (records only: the blob files stay where they are), written
 * idempotently.
 */
export const mediaLegacy: LegacyImport<RepositoryContract<MediaRepository>> = {
	media: (repo, doc) =>
		repo.importMedia({
			Id: doc._id,
			Kind: doc.Kind === "Avatar" ? "Avatar" : "Picture",
			UserId: legacyText(doc.UserId),
			OwnerId: legacyText(doc.OwnerId),
			PostId: legacyText(doc.PostId),
			ContentType: String(doc.ContentType),
			Size: Number(doc.Size),
			ETag: String(doc.ETag),
			CreatedTime: Number(doc.CreatedTime),
		}),
};
