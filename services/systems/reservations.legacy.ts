import { LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { ReservationsRepository } from "./reservations.repository";

/**
 * The former NeDB collection of the reservations service, written through the repository
 * (idempotent). A reservation it marked converted is done; its account is in the users domain.
 */
export const reservationsLegacy: LegacyImport<RepositoryContract<ReservationsRepository>> = {
	reservations: (repo, doc) =>
		repo.importReservation(
			{
				Id: doc._id,
				Email: String(doc.Email),
				FirstName: legacyText(doc.FirstName),
				LastName: legacyText(doc.LastName),
				VenueId: legacyText(doc.VenueId),
				NetworkId: legacyText(doc.NetworkId),
				InvitedBy: legacyText(doc.InvitedBy),
				ExpirationDate: Number(doc.ExpirationDate),
				CreatedTime: Number(doc.CreatedTime),
			},
			doc.Converted ? Number(doc.ConvertedTime ?? doc.CreatedTime) : undefined,
		),
};
