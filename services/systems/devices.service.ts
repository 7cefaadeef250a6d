import { createHash } from "node:crypto";
import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { pageOf, toRecord } from "../../shared/persistence/documents";
import { Doc } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures, PlazaError } from "../../shared/errors";

type Page = { Offset: number; Limit: number };
type DevicesThis = Service & CollectionsMethods<"devices">;

/** A device is one per user and token; tokens can be long, so the key holds their hash. */
const deviceKey = (userId: string, token: string) => `${userId}:${createHash("sha256").update(token).digest("hex")}`;

/** Users' devices (push notification tokens). */
export function devicesService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, Record<string, never>, CollectionsMethods<"devices">> = {
		name: "devices",
		mixins: [collectionsMixin(config.store, { devices: [{ field: "UserId" }, { field: "DeviceKey", unique: true, reportAs: "DeviceToken" }] })],

		actions: {
			async register(this: DevicesThis, ctx: Context<{ UserId: string; DeviceToken: string; Platform?: string; Name?: string }>) {
				const DeviceKey = deviceKey(ctx.params.UserId, ctx.params.DeviceToken);
				const existing = await this.stores.devices.findOne({ DeviceKey });
				if (existing) return toRecord(existing);
				const doc: Doc = { _id: newGuid(), ...ctx.params, DeviceKey, CreatedTime: Date.now() };
				try {
					return toRecord(await this.stores.devices.insert(doc));
				} catch (err) {
					// Registered at the same moment by another request: that record is the answer.
					const raced = (err as PlazaError).code === 409 ? await this.stores.devices.findOne({ DeviceKey }) : null;
					if (!raced) throw err;
					return toRecord(raced);
				}
			},

			async ofUser(this: DevicesThis, ctx: Context<{ UserId: string } & Page>) {
				return (await pageOf(this.stores.devices, { UserId: ctx.params.UserId }, ctx.params)).map(toRecord);
			},

			async unregister(this: DevicesThis, ctx: Context<{ UserId: string; Id: string }>) {
				const doc = await this.stores.devices.findById(ctx.params.Id);
				if (!doc || doc.UserId !== ctx.params.UserId) throw failures.notFound(`Device ${ctx.params.Id}`);
				await this.stores.devices.removeById(doc._id);
				return toRecord(doc);
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
