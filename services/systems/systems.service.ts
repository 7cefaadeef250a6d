import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { insertUnlessExists, pageOf, toRecord } from "../../shared/persistence/documents";
import { Doc, Query } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { callerOf } from "../../shared/caller";
import { profilesOf } from "../../shared/profiles";

type Page = { Offset: number; Limit: number };
type SystemsStores = CollectionsMethods<"systems" | "counters" | "workItems" | "serviceMaps">;
type SystemsThis = Service & SystemsStores & SystemsMethods;

interface SystemsMethods {
	systemDoc(id: number): Promise<Doc>;
	workItemDoc(id: string): Promise<Doc>;
	mapDoc(systemId: number, referenceId: string, workItemId: string): Doc;
}

interface WorkItemInput {
	ShortDescription: string;
	LongDescription?: string;
	ReferenceId?: string;
	IsMappingRequired: boolean;
	SystemId?: number;
	Url?: string;
}

/** A System's record: its Id is the integer kept in SystemId (store ids are strings). */
const systemRecord = (doc: Doc) => ({ ...toRecord(doc), Id: doc.SystemId });
const mapKey = (systemId: number, referenceId: string) => `${systemId}:${referenceId}`;

/** Outside systems, the work items Plaza keeps for them, and the maps between the two. */
export function systemsService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, SystemsMethods, SystemsStores> = {
		name: "systems",
		mixins: [
			collectionsMixin(config.store, {
				systems: [],
				counters: [],
				workItems: [{ field: "SystemId" }],
				serviceMaps: [{ field: "SystemId" }, { field: "WorkItemId" }, { field: "MapKey", unique: true, reportAs: "ReferenceId" }],
			}),
		],

		async started(this: SystemsThis) {
			// The counter of system ids exists once; a later start finds it there.
			await insertUnlessExists(this.stores.counters, { _id: "systems", Value: 0 });
		},

		actions: {
			async create(this: SystemsThis, ctx: Context<{ Name: string; Description?: string; Url?: string }>) {
				// $inc is atomic in every store: concurrent creates get distinct, ascending ids.
				const counter = await this.stores.counters.updateById("systems", { $inc: { Value: 1 } });
				const SystemId = Number(counter?.Value);
				const doc: Doc = { _id: String(SystemId), SystemId, ...ctx.params, CreatedTime: Date.now() };
				return systemRecord(await this.stores.systems.insert(doc));
			},

			async find(this: SystemsThis, ctx: Context<{ Id: number }>) {
				return systemRecord(await this.systemDoc(ctx.params.Id));
			},

			async list(this: SystemsThis, ctx: Context<Page>) {
				return (await pageOf(this.stores.systems, {}, ctx.params, ["SystemId"])).map(systemRecord);
			},

			async createWorkItem(this: SystemsThis, ctx: Context<WorkItemInput>) {
				const { IsMappingRequired, SystemId, ReferenceId, ...fields } = ctx.params;
				if (IsMappingRequired && SystemId === undefined) throw failures.field("SystemId", "NotEmpty", "SystemId is required when IsMappingRequired");
				if (IsMappingRequired && !ReferenceId) throw failures.field("ReferenceId", "NotEmpty", "ReferenceId is required when IsMappingRequired");
				if (SystemId !== undefined) await this.systemDoc(SystemId);
				const creator = callerOf(ctx)?.userId;
				const venue = creator ? (await profilesOf(ctx, [creator])).get(creator)?.DefaultVenueId : undefined;
				const item: Doc = { _id: newGuid(), ...fields, ReferenceId, SystemId, DefaultVenueId: venue, CreatedBy: creator, CreatedTime: Date.now() };
				// The map first: when the reference is mapped already (409), no work item is left behind.
				const map = IsMappingRequired ? await this.stores.serviceMaps.insert(this.mapDoc(SystemId!, ReferenceId!, item._id)) : undefined;
				try {
					return toRecord(await this.stores.workItems.insert(item));
				} catch (err) {
					if (map) await this.stores.serviceMaps.removeById(map._id);
					throw err;
				}
			},

			async findWorkItem(this: SystemsThis, ctx: Context<{ Id: string }>) {
				return toRecord(await this.workItemDoc(ctx.params.Id));
			},

			async createMap(this: SystemsThis, ctx: Context<{ SystemId: number; ReferenceId: string; WorkItemId: string }>) {
				await this.systemDoc(ctx.params.SystemId);
				await this.workItemDoc(ctx.params.WorkItemId);
				return toRecord(await this.stores.serviceMaps.insert(this.mapDoc(ctx.params.SystemId, ctx.params.ReferenceId, ctx.params.WorkItemId)));
			},

			async maps(this: SystemsThis, ctx: Context<{ SystemId?: number; ReferenceId?: string } & Page>) {
				const query: Query = {};
				if (ctx.params.SystemId !== undefined) query.SystemId = ctx.params.SystemId;
				if (ctx.params.ReferenceId) query.ReferenceId = ctx.params.ReferenceId;
				return (await pageOf(this.stores.serviceMaps, query, ctx.params)).map(toRecord);
			},
		},

		methods: {
			async systemDoc(this: SystemsThis, id: number) {
				const doc = await this.stores.systems.findById(String(id));
				if (!doc) throw failures.notFound(`System ${id}`);
				return doc;
			},

			async workItemDoc(this: SystemsThis, id: string) {
				const doc = await this.stores.workItems.findById(id);
				if (!doc) throw failures.notFound(`Work item ${id}`);
				return doc;
			},

			mapDoc(systemId: number, referenceId: string, workItemId: string): Doc {
				return { _id: newGuid(), SystemId: systemId, ReferenceId: referenceId, WorkItemId: workItemId, CreatedTime: Date.now(), MapKey: mapKey(systemId, referenceId) };
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
