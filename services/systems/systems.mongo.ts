import { Collection, Document } from "mongodb";
import { failures } from "../../shared/errors";
import { Page } from "../../shared/persistence/sql/paging";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { duplicateIndexOf, isDuplicateKey, upsertOnce } from "../../shared/persistence/mongo/errors";
import { pageOfList } from "../../shared/persistence/mongo/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { definedFields } from "../../shared/persistence/mongo/documents";
import {
	ServiceMapFilter,
	ServiceMapRow,
	SystemRow,
	SystemsPage,
	SystemsRepository,
	WorkItemRow,
} from "./systems.repository";

/** The counter of system ids: one document, `_id` "systems". */
interface CounterDocument {
	_id: string;
	value: number;
}

interface SystemDocument {
	_id: number;
	name: string;
	description?: string;
	url?: string;
	created_time: number;
}

interface WorkItemDocument {
	_id: string;
	short_description: string;
	long_description?: string;
	reference_id?: string;
	system_id?: number;
	url?: string;
	default_venue_id?: string;
	created_by?: string;
	created_time: number;
}

interface MapDocument {
	_id: string;
	system_id: number;
	reference_id: string;
	work_item_id: string;
	created_time: number;
}

/** The unique index that makes a reference of a system mapped once. */
const mapKey = "service_map_key";

export const systemsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "service maps: one per system and reference; in order, by system, by reference",
		apply: async db => {
			await db
				.collection("service_maps")
				.createIndex({ system_id: 1, reference_id: 1 }, { name: mapKey, unique: true });
			await db.collection("service_maps").createIndex({ created_time: 1, _id: 1 }, { name: "service_maps_in_order" });
			await db
				.collection("service_maps")
				.createIndex({ system_id: 1, created_time: 1, _id: 1 }, { name: "service_maps_by_system" });
			await db
				.collection("service_maps")
				.createIndex({ reference_id: 1, created_time: 1, _id: 1 }, { name: "service_maps_by_reference" });
		},
	},
];

const systemDocumentOf = (s: SystemRow): SystemDocument =>
	definedFields({ _id: s.Id, name: s.Name, description: s.Description, url: s.Url, created_time: s.CreatedTime });
const toSystem = (d: SystemDocument): SystemRow =>
	definedFields({ Id: d._id, Name: d.name, Description: d.description, Url: d.url, CreatedTime: d.created_time });

const workItemDocumentOf = (w: WorkItemRow): WorkItemDocument =>
	definedFields({
		_id: w.Id,
		short_description: w.ShortDescription,
		long_description: w.LongDescription,
		reference_id: w.ReferenceId,
		system_id: w.SystemId,
		url: w.Url,
		default_venue_id: w.DefaultVenueId,
		created_by: w.CreatedBy,
		created_time: w.CreatedTime,
	});
const toWorkItem = (d: WorkItemDocument): WorkItemRow =>
	definedFields({
		Id: d._id,
		ShortDescription: d.short_description,
		LongDescription: d.long_description,
		ReferenceId: d.reference_id,
		SystemId: d.system_id,
		Url: d.url,
		DefaultVenueId: d.default_venue_id,
		CreatedBy: d.created_by,
		CreatedTime: d.created_time,
	});

/**
 * A map's document. Its system and reference are its key, which SQL declares NOT NULL: MongoDB would
 * keep a map without them (one per system under the unique index), so it is refused before any write.
 */
function mapDocumentOf(m: ServiceMapRow): MapDocument {
	if (typeof m.SystemId !== "number" || typeof m.ReferenceId !== "string")
		throw new Error("A service map names its system and its reference");
	return {
		_id: m.Id,
		system_id: m.SystemId,
		reference_id: m.ReferenceId,
		work_item_id: m.WorkItemId,
		created_time: m.CreatedTime,
	};
}
const toMap = (d: MapDocument): ServiceMapRow => ({
	Id: d._id,
	SystemId: d.system_id,
	ReferenceId: d.reference_id,
	WorkItemId: d.work_item_id,
	CreatedTime: d.created_time,
});

const mappedAlready = (map: ServiceMapRow) =>
	failures.alreadyExists("ReferenceId", `Reference ${map.ReferenceId} of system ${map.SystemId} is mapped already`);

/** Outside systems, work items and their maps on MongoDB: what `SystemsRepository` does on SQL. */
export class MongoSystemsRepository implements RepositoryContract<SystemsRepository> {
	private readonly counter: Collection<CounterDocument>;
	private readonly systemDocs: Collection<SystemDocument>;
	private readonly workItems: Collection<WorkItemDocument>;
	private readonly serviceMaps: Collection<MapDocument>;

	constructor(private readonly store: MongoStore) {
		this.counter = store.collection<CounterDocument>("system_counter");
		this.systemDocs = store.collection<SystemDocument>("systems");
		this.workItems = store.collection<WorkItemDocument>("work_items");
		this.serviceMaps = store.collection<MapDocument>("service_maps");
	}

	/**
	 * Takes the next id (`$inc` on the counter), then inserts the system: a crash between leaves an id
	 * never used, and an id found taken (a system imported past the counter) is passed over. Unlike
	 * SQL, nothing holds the counter until the insert: of systems made at once, a higher id may be
	 * listed an instant before a lower one, which a reader paging by cursor just then passes over.
	 */
	async createSystem(fields: Omit<SystemRow, "Id">): Promise<SystemRow> {
		for (;;) {
			const system = { Id: await this.nextId(), ...fields };
			if (await this.store.insertOnce(this.systemDocs, systemDocumentOf(system))) return definedFields(system);
		}
	}

	/**
	 * The counter first, then the system: a crash between leaves the counter ahead, which is harmless, and the import
	 * runs again.
	 */
	async importSystem(system: SystemRow): Promise<void> {
		await this.counterAtLeast(system.Id);
		await this.store.insertOnce(this.systemDocs, systemDocumentOf(system));
	}

	async importCounter(value: number): Promise<void> {
		await this.counterAtLeast(value);
	}

	async findSystem(id: number): Promise<SystemRow | undefined> {
		const doc = await this.systemDocs.findOne({ _id: id });
		return doc ? toSystem(doc) : undefined;
	}

	async systems(page: SystemsPage): Promise<SystemRow[]> {
		if (page.Limit === 0) return [];
		if (page.AfterId !== undefined && !(await this.findSystem(page.AfterId)))
			throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
		const after = page.AfterId !== undefined ? { _id: { $gt: page.AfterId } } : {};
		return (await this.systemDocs.find(after).sort({ _id: 1 }).skip(page.Offset).limit(page.Limit).toArray()).map(
			toSystem,
		);
	}

	/**
	 * The work item first, then its map; when the map is refused (mapped already, or any failure) the
	 * work item is deleted again. A crash between leaves a work item whose Id nobody was given and no
	 * map, so the reference stays free and the call retried maps it.
	 */
	async createWorkItem(item: WorkItemRow, map?: ServiceMapRow): Promise<WorkItemRow> {
		const mapDoc = map && mapDocumentOf(map);
		await this.workItems.insertOne(workItemDocumentOf(item));
		if (!map || !mapDoc) return definedFields({ ...item });
		let mapped = false;
		try {
			mapped = await this.insertMap(mapDoc);
		} finally {
			if (!mapped) await this.workItems.deleteOne({ _id: item.Id });
		}
		if (mapped) return definedFields({ ...item });
		throw mappedAlready(map);
	}

	async importWorkItem(item: WorkItemRow): Promise<void> {
		await this.store.insertOnce(this.workItems, workItemDocumentOf(item));
	}

	async findWorkItem(id: string): Promise<WorkItemRow | undefined> {
		const doc = await this.workItems.findOne({ _id: id });
		return doc ? toWorkItem(doc) : undefined;
	}

	async createMap(map: ServiceMapRow): Promise<ServiceMapRow | undefined> {
		const doc = mapDocumentOf(map);
		return (await this.insertMap(doc)) ? toMap(doc) : undefined;
	}

	async importMap(map: ServiceMapRow): Promise<void> {
		if (!(await this.workItems.countDocuments({ _id: map.WorkItemId }, { limit: 1 }))) return;
		await this.store.insertOnce(this.serviceMaps, mapDocumentOf(map));
	}

	async maps(filter: ServiceMapFilter, page: Page): Promise<ServiceMapRow[]> {
		const where: Document = {};
		if (filter.SystemId !== undefined) where.system_id = filter.SystemId;
		if (filter.ReferenceId) where.reference_id = filter.ReferenceId;
		// The cursor may name any map, as on SQL: it is looked for among all of them.
		return (await pageOfList(this.serviceMaps, page, where, { time: "created_time", anchorWithin: {} })).map(toMap);
	}

	/** Inserts a map unless its system's reference is mapped: false when it is. */
	private async insertMap(doc: MapDocument): Promise<boolean> {
		try {
			await this.serviceMaps.insertOne(doc);
			return true;
		} catch (err) {
			if (isDuplicateKey(err) && duplicateIndexOf(err) === mapKey) return false;
			throw err;
		}
	}

	/**
	 * `$inc` upserts the counter; the id is the value before it plus one (the same atomic update as
	 * asking for the value after, which the in-memory test server does not report atomically). Two
	 * first ids at once: one upsert meets the other's `_id`, and is taken again.
	 */
	private async nextId(): Promise<number> {
		const taken = await upsertOnce(() =>
			this.counter.findOneAndUpdate(
				{ _id: "systems" },
				{ $inc: { value: 1 } },
				{ upsert: true, returnDocument: "before" },
			),
		);
		return Number(taken?.value ?? 0) + 1;
	}

	/** `$max`: the counter only moves up, whatever imports run at once. */
	private async counterAtLeast(value: number): Promise<void> {
		await upsertOnce(() => this.counter.updateOne({ _id: "systems" }, { $max: { value } }, { upsert: true }));
	}
}
