import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { DevicesRepository } from "./devices.repository";
import { devicesMigrations } from "./devices.schema";
import { devicesLegacy } from "./devices.legacy";
import { MongoDevicesRepository, devicesMongoMigrations } from "./devices.mongo";
import { typedService } from "../../shared/implement";
import { systemsOperations } from "../../shared/catalogue";
import { changed } from "../../shared/changes/changes";

const { implement, define } = typedService<object, WithRepository<RepositoryContract<DevicesRepository>>>();

/** Users' devices (push notification tokens). */
export function devicesService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "devices",
		mixins: [
			repositoryMixin<RepositoryContract<DevicesRepository>>(config.store, {
				domain: "devices",
				migrations: devicesMigrations,
				create: db => new DevicesRepository(db),
				mongo: { migrations: devicesMongoMigrations, create: store => new MongoDevicesRepository(store) },
				legacy: devicesLegacy,
			}),
		],

		actions: {
			...implement(systemsOperations.CreateUserDevice, async function (ctx) {
				const device = await this.repo.register({ Id: newGuid(), ...ctx.params, CreatedTime: Date.now() });
				await changed(ctx, { domain: "devices" });
				return device;
			}),

			...implement(systemsOperations.UserDevices, async function (ctx) {
				return this.repo.ofUser(ctx.params.UserId, ctx.params);
			}),

			...implement(systemsOperations.DeleteUserDevice, async function (ctx) {
				const device = await this.repo.unregister(ctx.params.UserId, ctx.params.Id);
				if (!device) throw failures.notFound(`Device ${ctx.params.Id}`);
				await changed(ctx, { domain: "devices" });
				return device;
			}),

			/** Internal: removes every device of a deleted account; again, or with nothing left, is fine. */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					const removed = await this.repo.removeAllOf(ctx.params.userId);
					// Stated even when nothing was left: a first call cut off before stating may have removed it.
					await changed(ctx, { domain: "devices" });
					return removed;
				},
			},
		},
	});
}
