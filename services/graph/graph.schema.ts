import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The graph domain's tables. Every record that can be written twice at once has a unique key:
 * a connection side (owner, user), a membership (network, user), a subscription (subscriber, target).
 * Each list is read through an index on (owner, created_time, id): pages and top-N per owner seek it.
 */
export const graphMigrations: Migration[] = [
	{
		version: 1,
		description: "connections, networks, network_members and subscriptions",
		statements: () => [
			"CREATE TABLE connections (id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, user_id TEXT NOT NULL, is_favorite INTEGER NOT NULL DEFAULT 0, created_time BIGINT NOT NULL, UNIQUE (owner_id, user_id))",
			// Covering: a page of a user's connections, and the first 100 embedded in a User record, come from the index
			// alone.
			"CREATE INDEX connections_by_owner ON connections (owner_id, created_time, id, user_id, is_favorite)",
			"CREATE TABLE networks (id TEXT PRIMARY KEY, name TEXT NOT NULL, owner_id TEXT NOT NULL, number_of_members INTEGER NOT NULL, created_time BIGINT NOT NULL)",
			"CREATE TABLE network_members (id TEXT PRIMARY KEY, network_id TEXT NOT NULL, user_id TEXT NOT NULL, created_time BIGINT NOT NULL, UNIQUE (network_id, user_id))",
			"CREATE INDEX network_members_by_network ON network_members (network_id, created_time, id)",
			// Covering for UserNetworks, embedFor and audienceOf: the network ids of a user in the order joined.
			"CREATE INDEX network_members_by_user ON network_members (user_id, created_time, id, network_id)",
			"CREATE TABLE subscriptions (id TEXT PRIMARY KEY, subscriber_id TEXT NOT NULL, subscribed_to_id TEXT NOT NULL, subscriber_to_display_name TEXT, subscribed_to_external_name TEXT, created_time BIGINT NOT NULL, UNIQUE (subscriber_id, subscribed_to_id))",
			"CREATE INDEX subscriptions_by_subscriber ON subscriptions (subscriber_id, created_time, id)",
		],
	},
	{
		version: 2,
		description: "networks are closed unless open",
		// Networks that exist are closed: only their owners (or admins) add members from now on.
		statements: () => ["ALTER TABLE networks ADD COLUMN is_open INTEGER NOT NULL DEFAULT 0"],
	},
	{
		version: 3,
		description: "subscribers by what they subscribe to",
		// A post's fan-out reads who subscribes to its author and its context.
		statements: () => ["CREATE INDEX subscriptions_by_target ON subscriptions (subscribed_to_id, subscriber_id)"],
	},
	{
		version: 4,
		description: "blocks and mutes",
		// Each unique by (owner, user) and listed by owner; by user for "who blocked me" (hidden either way) and for
		// forgetting a deleted account.
		statements: () => [
			"CREATE TABLE blocks (owner_id TEXT NOT NULL, user_id TEXT NOT NULL, created_time BIGINT NOT NULL, PRIMARY KEY (owner_id, user_id))",
			"CREATE INDEX blocks_by_owner ON blocks (owner_id, created_time, user_id)",
			"CREATE INDEX blocks_by_user ON blocks (user_id, owner_id)",
			"CREATE TABLE mutes (owner_id TEXT NOT NULL, user_id TEXT NOT NULL, created_time BIGINT NOT NULL, PRIMARY KEY (owner_id, user_id))",
			"CREATE INDEX mutes_by_owner ON mutes (owner_id, created_time, user_id)",
			"CREATE INDEX mutes_by_user ON mutes (user_id, owner_id)",
		],
	},
];
