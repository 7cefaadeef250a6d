import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The systems domain's tables: outside systems numbered by a counter row (taken in the same
 * transaction as the insert, so ids ascend in commit order and a cursor never skips one), work
 * items, and service maps keyed by (system, reference).
 */
export const systemsMigrations: Migration[] = [
	{
		version: 1,
		description: "systems and their id counter, work_items, service_maps",
		statements: () => [
			"CREATE TABLE system_counter (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
			"INSERT INTO system_counter (name, value) VALUES ('systems', 0)",
			"CREATE TABLE systems (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT, url TEXT, created_time BIGINT NOT NULL)",
			"CREATE TABLE work_items (id TEXT PRIMARY KEY, short_description TEXT NOT NULL, long_description TEXT, reference_id TEXT, system_id INTEGER, url TEXT, default_venue_id TEXT, created_by TEXT, created_time BIGINT NOT NULL)",
			"CREATE TABLE service_maps (id TEXT PRIMARY KEY, system_id INTEGER NOT NULL, reference_id TEXT NOT NULL, work_item_id TEXT NOT NULL, created_time BIGINT NOT NULL, UNIQUE (system_id, reference_id))",
			"CREATE INDEX service_maps_in_order ON service_maps (created_time, id)",
			"CREATE INDEX service_maps_by_system ON service_maps (system_id, created_time, id)",
			"CREATE INDEX service_maps_by_reference ON service_maps (reference_id, created_time, id)",
		],
	},
];
