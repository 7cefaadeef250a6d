import { Migration } from "../../shared/persistence/sql/migrations";

/** The venues domain's tables: a venue, and its members keyed by (venue, user). */
export const venuesMigrations: Migration[] = [
	{
		version: 1,
		description: "venues and venue_members",
		statements: () => [
			"CREATE TABLE venues (id TEXT PRIMARY KEY, name TEXT NOT NULL, owner_id TEXT NOT NULL, created_time BIGINT NOT NULL)",
			"CREATE TABLE venue_members (venue_id TEXT NOT NULL, user_id TEXT NOT NULL, role_id TEXT, created_time BIGINT NOT NULL, updated_time BIGINT, PRIMARY KEY (venue_id, user_id))",
			"CREATE INDEX venue_members_by_venue ON venue_members (venue_id, created_time, user_id)",
			"CREATE INDEX venue_members_by_user ON venue_members (user_id, created_time, venue_id)",
		],
	},
];
