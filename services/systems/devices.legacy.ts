import { LegacyImport } from "../../shared/persistence/legacy";
import { DevicesRepository } from "./devices.repository";

const optional = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

/** The former NeDB collection of the devices service, written through the repository (idempotent). */
export const devicesLegacy: LegacyImport<DevicesRepository> = {
	devices: (repo, doc) =>
		repo.importDevice({ Id: doc._id, UserId: String(doc.UserId), DeviceToken: String(doc.DeviceToken), Platform: optional(doc.Platform), Name: optional(doc.Name), CreatedTime: Number(doc.CreatedTime) }),
};
