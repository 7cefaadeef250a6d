import { LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { DevicesRepository } from "./devices.repository";

/** The former NeDB collection of the devices service, written through the repository (idempotent). */
export const devicesLegacy: LegacyImport<RepositoryContract<DevicesRepository>> = {
	devices: (repo, doc) =>
		repo.importDevice({
			Id: doc._id,
			UserId: String(doc.UserId),
			DeviceToken: String(doc.DeviceToken),
			Platform: legacyText(doc.Platform),
			Name: legacyText(doc.Name),
			CreatedTime: Number(doc.CreatedTime),
		}),
};
