import { LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { VenuesRepository } from "./venues.repository";

/** The former NeDB collections of the venues domain, written through the repository (idempotent). */
export const venuesLegacy: LegacyImport<RepositoryContract<VenuesRepository>> = {
	venues: (repo, doc) =>
		repo.importVenue({
			Id: doc._id,
			Name: String(doc.Name),
			OwnerId: String(doc.OwnerId),
			CreatedTime: Number(doc.CreatedTime),
		}),
	venueMembers: async (repo, doc) =>
		void (await repo.addMember(
			String(doc.VenueId),
			String(doc.UserId),
			doc.RoleId ? legacyText(doc.RoleId) : undefined,
			Number(doc.CreatedTime),
		)),
};
