import { failures } from "../../shared/errors";
import { SqlDatabase, SqlExecutor, SqlValue } from "../../shared/persistence/sql/database";
import { afterAnchor, anchorOf, anchorParams, Page } from "../../shared/persistence/sql/paging";
import { present } from "../../shared/persistence/sql/rows";

export interface SystemRow {
	Id: number;
	Name: string;
	Description?: string;
	Url?: string;
	CreatedTime: number;
}

export interface WorkItemRow {
	Id: string;
	ShortDescription: string;
	LongDescription?: string;
	ReferenceId?: string;
	SystemId?: number;
	Url?: string;
	DefaultVenueId?: string;
	CreatedBy?: string;
	CreatedTime: number;
}

export interface ServiceMapRow {
	Id: string;
	SystemId: number;
	ReferenceId: string;
	WorkItemId: string;
	CreatedTime: number;
}

/** Systems are paged by their integer Id, so their cursor is one. */
export type SystemsPage = Omit<Page, "AfterId"> & { AfterId?: number };

export interface ServiceMapFilter {
	SystemId?: number;
	ReferenceId?: string;
}

const systemColumns =
	'id AS "Id", name AS "Name", description AS "Description", url AS "Url", created_time AS "CreatedTime"';
const workItemColumns =
	'id AS "Id", short_description AS "ShortDescription", long_description AS "LongDescription", reference_id AS "ReferenceId", system_id AS "SystemId", url AS "Url", default_venue_id AS "DefaultVenueId", created_by AS "CreatedBy", created_time AS "CreatedTime"';
const mapColumns =
	'id AS "Id", system_id AS "SystemId", reference_id AS "ReferenceId", work_item_id AS "WorkItemId", created_time AS "CreatedTime"';

const insertSystem = "INSERT INTO systems (id, name, description, url, created_time) VALUES ($1, $2, $3, $4, $5)";
const insertWorkItem =
	"INSERT INTO work_items (id, short_description, long_description, reference_id, system_id, url, default_venue_id, created_by, created_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
const insertMap = `INSERT INTO service_maps (id, system_id, reference_id, work_item_id, created_time) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (system_id, reference_id) DO NOTHING RETURNING ${mapColumns}`;

const workItemValues = (w: WorkItemRow): SqlValue[] => [
	w.Id,
	w.ShortDescription,
	w.LongDescription,
	w.ReferenceId,
	w.SystemId,
	w.Url,
	w.DefaultVenueId,
	w.CreatedBy,
	w.CreatedTime,
];
const mapValues = (m: ServiceMapRow): SqlValue[] => [m.Id, m.SystemId, m.ReferenceId, m.WorkItemId, m.CreatedTime];

/** Outside systems, work items and the maps between them (one map per system and reference). */
export class SystemsRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** A system with the next Id: the counter row is locked until the insert commits, so ids ascend in commit order. */
	async createSystem(fields: Omit<SystemRow, "Id">): Promise<SystemRow> {
		return this.db.transaction(async tx => {
			const counter = await tx.get<{ value: number }>(
				"UPDATE system_counter SET value = value + 1 WHERE name = 'systems' RETURNING value",
			);
			const Id = Number(counter?.value);
			await tx.run(insertSystem, [Id, fields.Name, fields.Description, fields.Url, fields.CreatedTime]);
			return present({ Id, ...fields });
		});
	}

	/** A system as the former store held it, with its Id; the counter moves past it. Nothing when it is there already. */
	async importSystem(system: SystemRow): Promise<void> {
		await this.db.transaction(async tx => {
			await tx.run(`${insertSystem} ON CONFLICT (id) DO NOTHING`, [
				system.Id,
				system.Name,
				system.Description,
				system.Url,
				system.CreatedTime,
			]);
			await this.counterAtLeast(tx, system.Id);
		});
	}

	/** The former store's counter of system ids: ids it handed out are not handed out again. */
	async importCounter(value: number): Promise<void> {
		await this.counterAtLeast(this.db, value);
	}

	async findSystem(id: number): Promise<SystemRow | undefined> {
		const row = await this.db.get<SystemRow>(`SELECT ${systemColumns} FROM systems WHERE id = $1`, [id]);
		return row && present(row);
	}

	/** A page of systems in the order registered (by Id); the cursor is a system's Id. */
	async systems(page: SystemsPage): Promise<SystemRow[]> {
		if (page.Limit === 0) return [];
		if (page.AfterId !== undefined && !(await this.findSystem(page.AfterId)))
			throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
		const after = page.AfterId !== undefined ? "WHERE id > $3" : "";
		const rows = await this.db.all<SystemRow>(
			`SELECT ${systemColumns} FROM systems ${after} ORDER BY id LIMIT $1 OFFSET $2`,
			[page.Limit, page.Offset, ...(page.AfterId !== undefined ? [page.AfterId] : [])],
		);
		return rows.map(present);
	}

	/**
	 * A work item and, when given, its map, in one transaction: when the reference is mapped already
	 * (409 on ReferenceId) or the map cannot be written, no work item is left behind.
	 */
	async createWorkItem(item: WorkItemRow, map?: ServiceMapRow): Promise<WorkItemRow> {
		return this.db.transaction(async tx => {
			await tx.run(insertWorkItem, workItemValues(item));
			if (map && !(await tx.get(insertMap, mapValues(map))))
				throw failures.alreadyExists(
					"ReferenceId",
					`Reference ${map.ReferenceId} of system ${map.SystemId} is mapped already`,
				);
			return present({ ...item });
		});
	}

	/** A work item as the former store held it; nothing when it is there already. */
	async importWorkItem(item: WorkItemRow): Promise<void> {
		await this.db.run(`${insertWorkItem} ON CONFLICT (id) DO NOTHING`, workItemValues(item));
	}

	async findWorkItem(id: string): Promise<WorkItemRow | undefined> {
		const row = await this.db.get<WorkItemRow>(`SELECT ${workItemColumns} FROM work_items WHERE id = $1`, [id]);
		return row && present(row);
	}

	/** Maps a reference unless it is mapped: the map, or undefined when (SystemId, ReferenceId) had one. */
	async createMap(map: ServiceMapRow): Promise<ServiceMapRow | undefined> {
		return this.db.get<ServiceMapRow>(insertMap, mapValues(map));
	}

	/**
	 * A map as the former store held it, unless its work item is missing: the former store wrote the
	 * map first, and a crash before the work item left a map that blocked its reference for ever.
	 */
	async importMap(map: ServiceMapRow): Promise<void> {
		await this.db.run(
			"INSERT INTO service_maps (id, system_id, reference_id, work_item_id, created_time) SELECT CAST($1 AS TEXT), CAST($2 AS INTEGER), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS BIGINT) WHERE EXISTS (SELECT 1 FROM work_items WHERE id = $4) ON CONFLICT DO NOTHING",
			mapValues(map),
		);
	}

	/** A page of maps, of one system and/or one reference when given, in the order made; the cursor is a map's Id. */
	async maps(filter: ServiceMapFilter, page: Page): Promise<ServiceMapRow[]> {
		if (page.Limit === 0) return [];
		const conditions: string[] = [];
		const params: SqlValue[] = [page.Limit, page.Offset];
		if (filter.SystemId !== undefined) {
			params.push(filter.SystemId);
			conditions.push(`system_id = $${params.length}`);
		}
		if (filter.ReferenceId) {
			params.push(filter.ReferenceId);
			conditions.push(`reference_id = $${params.length}`);
		}
		const anchor = await anchorOf(this.db, page, "SELECT created_time AS time, id FROM service_maps WHERE id = $1");
		if (anchor) {
			conditions.push(afterAnchor("created_time", "id", params.length + 1));
			params.push(...anchorParams(anchor));
		}
		const where = conditions.length ? `WHERE ${conditions.join(" AND ")}` : "";
		return this.db.all<ServiceMapRow>(
			`SELECT ${mapColumns} FROM service_maps ${where} ORDER BY created_time, id LIMIT $1 OFFSET $2`,
			params,
		);
	}

	private async counterAtLeast(db: SqlExecutor, value: number): Promise<void> {
		await db.run("UPDATE system_counter SET value = $1 WHERE name = 'systems' AND value < $1", [value]);
	}
}
