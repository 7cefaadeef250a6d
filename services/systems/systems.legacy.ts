import { LegacyDoc, LegacyImport } from "../../shared/persistence/legacy";
import { SystemsRepository } from "./systems.repository";

const optional = (value: unknown) => (value === undefined || value === null ? undefined : String(value));
const optionalNumber = (value: unknown) => (value === undefined || value === null ? undefined : Number(value));

/** The former NeDB collections of the systems service, written through the repository (idempotent). */
export const systemsLegacy: LegacyImport<SystemsRepository> = {
	systems: (repo, doc) => repo.importSystem({ Id: Number(doc.SystemId ?? doc._id), Name: String(doc.Name), Description: optional(doc.Description), Url: optional(doc.Url), CreatedTime: Number(doc.CreatedTime) }),
	counters: async (repo, doc: LegacyDoc) => {
		if (doc._id === "systems") await repo.importCounter(Number(doc.Value));
	},
	workItems: (repo, doc) =>
		repo.importWorkItem({
			Id: doc._id,
			ShortDescription: String(doc.ShortDescription),
			LongDescription: optional(doc.LongDescription),
			ReferenceId: optional(doc.ReferenceId),
			SystemId: optionalNumber(doc.SystemId),
			Url: optional(doc.Url),
			DefaultVenueId: optional(doc.DefaultVenueId),
			CreatedBy: optional(doc.CreatedBy),
			CreatedTime: Number(doc.CreatedTime),
		}),
	serviceMaps: (repo, doc) => repo.importMap({ Id: doc._id, SystemId: Number(doc.SystemId), ReferenceId: String(doc.ReferenceId), WorkItemId: String(doc.WorkItemId), CreatedTime: Number(doc.CreatedTime) }),
};
