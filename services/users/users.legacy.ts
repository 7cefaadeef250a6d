import { LegacyDoc, LegacyImport } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { NewUser, UsersRepository } from "./users.repository";

const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const texts = (value: unknown) => (Array.isArray(value) ? value.map(String) : undefined);

/** A user document of the former store: its fields are the record's, plus the account's (keys are derived again). */
function userOf(doc: LegacyDoc): NewUser {
	const created = Number(doc.CreatedTime ?? Date.now());
	return {
		Id: doc._id,
		UserName: text(doc.UserName),
		Email: text(doc.Email),
		DisplayName: text(doc.DisplayName),
		FirstName: text(doc.FirstName),
		MiddleName: text(doc.MiddleName),
		LastName: text(doc.LastName),
		Suffix: text(doc.Suffix),
		AboutMe: text(doc.AboutMe),
		JobTitle: text(doc.JobTitle),
		CompanyName: text(doc.CompanyName),
		CompanyAddress: text(doc.CompanyAddress),
		CompanyCity: text(doc.CompanyCity),
		CompanyStateProvince: text(doc.CompanyStateProvince),
		CompanyPostalCode: text(doc.CompanyPostalCode),
		CompanyCountry: text(doc.CompanyCountry),
		TimeZone: text(doc.TimeZone),
		DefaultVenueId: text(doc.DefaultVenueId),
		Experiences: texts(doc.Experiences),
		Certifications: texts(doc.Certifications),
		Interests: texts(doc.Interests),
		PasswordHash: text(doc.PasswordHash),
		DigestHa1: text(doc.DigestHa1),
		Roles: texts(doc.Roles),
		Cloaked: doc.Cloaked === true,
		CreatedTime: created,
		UpdatedTime: Number(doc.UpdatedTime ?? created),
	};
}

/** The former NeDB collection of users, written through the repository (idempotent). */
export const usersLegacy: LegacyImport<RepositoryContract<UsersRepository>> = {
	users: async (repo, doc) => void (await repo.importUser(userOf(doc))),
};
