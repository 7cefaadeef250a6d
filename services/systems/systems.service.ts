import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, WithRepository } from "../../shared/persistence/repository.mixin";
import { Page } from "../../shared/persistence/sql/paging";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf } from "../../shared/caller";
import { profilesOf } from "../../shared/profiles";
import { SystemRow, SystemsPage, SystemsRepository, WorkItemRow } from "./systems.repository";
import { systemsMigrations } from "./systems.schema";
import { systemsLegacy } from "./systems.legacy";

type SystemsThis = Service & WithRepository<SystemsRepository> & SystemsMethods;

interface SystemsMethods {
	system(id: number): Promise<SystemRow>;
	workItem(id: string): Promise<WorkItemRow>;
}

interface WorkItemInput {
	ShortDescription: string;
	LongDescription?: string;
	ReferenceId?: string;
	IsMappingRequired: boolean;
	SystemId?: number;
	Url?: string;
}

/** Outside systems, the work items Plaza keeps for them, and the maps between the two. */
export function systemsService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, SystemsMethods, WithRepository<SystemsRepository>> = {
		name: "systems",
		mixins: [repositoryMixin(config.store, { domain: "systems", migrations: systemsMigrations, create: db => new SystemsRepository(db), legacy: systemsLegacy })],

		actions: {
			async create(this: SystemsThis, ctx: Context<{ Name: string; Description?: string; Url?: string }>) {
				return this.repo.createSystem({ ...ctx.params, CreatedTime: Date.now() });
			},

			async find(this: SystemsThis, ctx: Context<{ Id: number }>) {
				return this.system(ctx.params.Id);
			},

			async list(this: SystemsThis, ctx: Context<SystemsPage>) {
				return this.repo.systems(ctx.params);
			},

			async createWorkItem(this: SystemsThis, ctx: Context<WorkItemInput>) {
				const { IsMappingRequired, SystemId, ReferenceId, ...fields } = ctx.params;
				if (IsMappingRequired && SystemId === undefined) throw failures.field("SystemId", "NotEmpty", "SystemId is required when IsMappingRequired");
				if (IsMappingRequired && !ReferenceId) throw failures.field("ReferenceId", "NotEmpty", "ReferenceId is required when IsMappingRequired");
				if (SystemId !== undefined) await this.system(SystemId);
				const creator = callerOf(ctx)?.userId;
				const venue = creator ? (await profilesOf(ctx, [creator])).get(creator)?.DefaultVenueId : undefined;
				const now = Date.now();
				const item: WorkItemRow = { Id: newGuid(), ...fields, ReferenceId, SystemId, DefaultVenueId: venue, CreatedBy: creator, CreatedTime: now };
				const map = IsMappingRequired ? { Id: newGuid(), SystemId: SystemId!, ReferenceId: ReferenceId!, WorkItemId: item.Id, CreatedTime: now } : undefined;
				return this.repo.createWorkItem(item, map);
			},

			async findWorkItem(this: SystemsThis, ctx: Context<{ Id: string }>) {
				return this.workItem(ctx.params.Id);
			},

			async createMap(this: SystemsThis, ctx: Context<{ SystemId: number; ReferenceId: string; WorkItemId: string }>) {
				const { SystemId, ReferenceId, WorkItemId } = ctx.params;
				await this.system(SystemId);
				await this.workItem(WorkItemId);
				const map = await this.repo.createMap({ Id: newGuid(), SystemId, ReferenceId, WorkItemId, CreatedTime: Date.now() });
				if (!map) throw failures.alreadyExists("ReferenceId", `Reference ${ReferenceId} of system ${SystemId} is mapped already`);
				return map;
			},

			async maps(this: SystemsThis, ctx: Context<{ SystemId?: number; ReferenceId?: string } & Page>) {
				return this.repo.maps(ctx.params, ctx.params);
			},
		},

		methods: {
			async system(this: SystemsThis, id: number) {
				const system = await this.repo.findSystem(id);
				if (!system) throw failures.notFound(`System ${id}`);
				return system;
			},

			async workItem(this: SystemsThis, id: string) {
				const item = await this.repo.findWorkItem(id);
				if (!item) throw failures.notFound(`Work item ${id}`);
				return item;
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
