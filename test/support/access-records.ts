import { TestPlaza } from "./plaza";

/**
 * Every domain table (a collection of the same name on MongoDB), by the service that keeps it: what a refused request
 * must leave as it was.
 */
const tables: Record<string, string[]> = {
	users: ["users"],
	sessions: ["sessions"],
	exports: ["data_exports"],
	graph: ["connections", "networks", "network_members", "subscriptions", "blocks", "mutes"],
	posts: ["posts", "post_tags", "post_recipients", "post_activities", "comments"],
	venues: ["venues", "venue_members"],
	systems: ["systems", "work_items", "service_maps"],
	devices: ["user_devices"],
	reservations: ["user_reservations"],
	media: ["media_records"],
};

/** The record count of every domain table (all at once), and the named users' records whole. */
export async function recordsSnapshot(plaza: TestPlaza, userIds: string[] = []): Promise<Record<string, unknown>> {
	const everyTable = Object.entries(tables).flatMap(([service, names]) =>
		names.map(table => [service, table] as const),
	);
	const [counts, users] = await Promise.all([
		Promise.all(everyTable.map(([service, table]) => plaza.stored(service).count(table))),
		Promise.all(userIds.map(id => plaza.stored("users").find("users", { id }))),
	]);
	const snapshot: Record<string, unknown> = {};
	everyTable.forEach(([, table], i) => (snapshot[table] = counts[i]));
	userIds.forEach((id, i) => (snapshot[`user ${id}`] = users[i]));
	return snapshot;
}
