import { LegacyDoc, LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { SystemsRepository } from "./systems.repository";

const optionalNumber = (value: unknown) => (value === undefined || value === null ? undefined : Number(value));

/** The former NeDB collections of the systems service, written through the repository (idempotent). */
export const systemsLegacy: LegacyImport<RepositoryContract<SystemsRepository>> = {
	systems: (repo, doc) =>
		repo.importSystem({
			Id: Number(doc.SystemId ?? doc._id),
			Name: String(doc.Name),
			Description: legacyText(doc.Description),
			Url: legacyText(doc.Url),
			CreatedTime: Number(doc.CreatedTime),
		}),
	counters: async (repo, doc: LegacyDoc) => {
		if (doc._id === "systems") await repo.importCounter(Number(doc.Value));
	},
	workItems: (repo, doc) =>
		repo.importWorkItem({
			Id: doc._id,
			ShortDescription: String(doc.ShortDescription),
			LongDescription: legacyText(doc.LongDescription),
			ReferenceId: legacyText(doc.ReferenceId),
			SystemId: optionalNumber(doc.SystemId),
			Url: legacyText(doc.Url),
			DefaultVenueId: legacyText(doc.DefaultVenueId),
			CreatedBy: legacyText(doc.CreatedBy),
			CreatedTime: Number(doc.CreatedTime),
		}),
	serviceMaps: (repo, doc) =>
		repo.importMap({
			Id: doc._id,
			SystemId: Number(doc.SystemId),
			ReferenceId: String(doc.ReferenceId),
			WorkItemId: String(doc.WorkItemId),
			CreatedTime: Number(doc.CreatedTime),
		}),
};
