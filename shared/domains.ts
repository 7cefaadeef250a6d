/** The domains, each a service's own store (its SQLite file, its migrations' key). */
export type Domain =
	| "users"
	| "sessions"
	| "apikeys"
	| "reports"
	| "exports"
	| "limits"
	| "graph"
	| "posts"
	| "venues"
	| "systems"
	| "devices"
	| "media"
	| "reservations";
