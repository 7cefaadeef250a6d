import { LegacyImport } from "../../shared/persistence/legacy";
import { ReservationsRepository } from "./reservations.repository";

const optional = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

/**
 * The former NeDB collection of the reservations service, written through the repository
 * (idempotent). A reservation it marked converted is done; its account is in the users domain.
 */
export const reservationsLegacy: LegacyImport<ReservationsRepository> = {
	reservations: (repo, doc) =>
		repo.importReservation(
			{
				Id: doc._id,
				Email: String(doc.Email),
				FirstName: optional(doc.FirstName),
				LastName: optional(doc.LastName),
				VenueId: optional(doc.VenueId),
				NetworkId: optional(doc.NetworkId),
				InvitedBy: optional(doc.InvitedBy),
				ExpirationDate: Number(doc.ExpirationDate),
				CreatedTime: Number(doc.CreatedTime),
			},
			doc.Converted ? Number(doc.ConvertedTime ?? doc.CreatedTime) : undefined,
		),
};
