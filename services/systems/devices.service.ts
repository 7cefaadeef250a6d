import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, WithRepository } from "../../shared/persistence/repository.mixin";
import { Page } from "../../shared/persistence/sql/paging";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { DevicesRepository } from "./devices.repository";
import { devicesMigrations } from "./devices.schema";
import { devicesLegacy } from "./devices.legacy";

type DevicesThis = Service & WithRepository<DevicesRepository>;

/** Users' devices (push notification tokens). */
export function devicesService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, Record<string, never>, WithRepository<DevicesRepository>> = {
		name: "devices",
		mixins: [repositoryMixin(config.store, { domain: "devices", migrations: devicesMigrations, create: db => new DevicesRepository(db), legacy: devicesLegacy })],

		actions: {
			async register(this: DevicesThis, ctx: Context<{ UserId: string; DeviceToken: string; Platform?: string; Name?: string }>) {
				return this.repo.register({ Id: newGuid(), ...ctx.params, CreatedTime: Date.now() });
			},

			async ofUser(this: DevicesThis, ctx: Context<{ UserId: string } & Page>) {
				return this.repo.ofUser(ctx.params.UserId, ctx.params);
			},

			async unregister(this: DevicesThis, ctx: Context<{ UserId: string; Id: string }>) {
				const device = await this.repo.unregister(ctx.params.UserId, ctx.params.Id);
				if (!device) throw failures.notFound(`Device ${ctx.params.Id}`);
				return device;
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
