import { ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf } from "../../shared/caller";
import { profilesOf } from "../../shared/profiles";
import { SystemRow, SystemsRepository, WorkItemRow } from "./systems.repository";
import { systemsMigrations } from "./systems.schema";
import { systemsLegacy } from "./systems.legacy";
import { MongoSystemsRepository, systemsMongoMigrations } from "./systems.mongo";
import { typedService } from "../../shared/implement";
import { systemsOperations } from "../../shared/catalogue";
import { changed } from "../../shared/changes/changes";

interface SystemsMethods {
	system(id: number): Promise<SystemRow>;
	workItem(id: string): Promise<WorkItemRow>;
}

const { implement, define } = typedService<SystemsMethods, WithRepository<RepositoryContract<SystemsRepository>>>();

/** Outside systems, the work items Plaza keeps for them, and the maps between the two. */
export function systemsService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "systems",
		mixins: [
			repositoryMixin<RepositoryContract<SystemsRepository>>(config.store, {
				domain: "systems",
				migrations: systemsMigrations,
				create: db => new SystemsRepository(db),
				mongo: { migrations: systemsMongoMigrations, create: store => new MongoSystemsRepository(store) },
				legacy: systemsLegacy,
			}),
		],

		actions: {
			...implement(systemsOperations.CreateSystem, async function (ctx) {
				const system = await this.repo.createSystem({ ...ctx.params, CreatedTime: Date.now() });
				await changed(ctx, { domain: "systems" });
				return system;
			}),

			...implement(systemsOperations.FindSystem, async function (ctx) {
				return this.system(ctx.params.Id);
			}),

			...implement(systemsOperations.AllSystems, async function (ctx) {
				return this.repo.systems(ctx.params);
			}),

			...implement(systemsOperations.CreateWorkItem, async function (ctx) {
				const { IsMappingRequired, SystemId, ReferenceId, ...fields } = ctx.params;
				if (IsMappingRequired && SystemId === undefined)
					throw failures.field("SystemId", "NotEmpty", "SystemId is required when IsMappingRequired");
				if (IsMappingRequired && !ReferenceId)
					throw failures.field("ReferenceId", "NotEmpty", "ReferenceId is required when IsMappingRequired");
				if (SystemId !== undefined) await this.system(SystemId);
				const creator = callerOf(ctx)?.userId;
				const venue = creator ? (await profilesOf(ctx, [creator])).get(creator)?.DefaultVenueId : undefined;
				const now = Date.now();
				const item: WorkItemRow = {
					Id: newGuid(),
					...fields,
					ReferenceId,
					SystemId,
					DefaultVenueId: venue,
					CreatedBy: creator,
					CreatedTime: now,
				};
				const map = IsMappingRequired
					? { Id: newGuid(), SystemId: SystemId!, ReferenceId: ReferenceId!, WorkItemId: item.Id, CreatedTime: now }
					: undefined;
				const created = await this.repo.createWorkItem(item, map);
				await changed(ctx, { domain: "systems" });
				return created;
			}),

			...implement(systemsOperations.FindWorkItem, async function (ctx) {
				return this.workItem(ctx.params.Id);
			}),

			...implement(systemsOperations.CreateServiceMap, async function (ctx) {
				const { SystemId, ReferenceId, WorkItemId } = ctx.params;
				await this.system(SystemId);
				await this.workItem(WorkItemId);
				const map = await this.repo.createMap({
					Id: newGuid(),
					SystemId,
					ReferenceId,
					WorkItemId,
					CreatedTime: Date.now(),
				});
				if (!map)
					throw failures.alreadyExists(
						"ReferenceId",
						`Reference ${ReferenceId} of system ${SystemId} is mapped already`,
					);
				await changed(ctx, { domain: "systems" });
				return map;
			}),

			...implement(systemsOperations.ServiceMapsDto, async function (ctx) {
				return this.repo.maps(ctx.params, ctx.params);
			}),
		},

		methods: {
			async system(id: number) {
				const system = await this.repo.findSystem(id);
				if (!system) throw failures.notFound(`System ${id}`);
				return system;
			},

			async workItem(id: string) {
				const item = await this.repo.findWorkItem(id);
				if (!item) throw failures.notFound(`Work item ${id}`);
				return item;
			},
		},
	});
}
