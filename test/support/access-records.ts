import { TestPlaza } from "./plaza";

/** Every domain table, by the service that keeps it: what a refused request must leave as it was. */
const tables: Record<string, string[]> = {
	users: ["users"],
	sessions: ["sessions"],
	graph: ["connections", "networks", "network_members", "subscriptions"],
	posts: ["posts", "post_tags", "post_recipients", "post_activities", "comments"],
	venues: ["venues", "venue_members"],
	systems: ["systems", "work_items", "service_maps"],
	devices: ["user_devices"],
	reservations: ["user_reservations"],
	media: ["media_records"],
};

/** The row count of every domain table (one query per service, all at once), and the named users' records whole. */
export async function recordsSnapshot(plaza: TestPlaza, userIds: string[] = []): Promise<Record<string, unknown>> {
	const [counts, users] = await Promise.all([
		Promise.all(Object.entries(tables).map(([service, names]) => plaza.db(service).get<Record<string, unknown>>(`SELECT ${names.map(t => `(SELECT COUNT(*) FROM ${t}) AS ${t}`).join(", ")}`))),
		Promise.all(userIds.map(id => plaza.db("users").get("SELECT * FROM users WHERE id = $1", [id]))),
	]);
	const snapshot: Record<string, unknown> = {};
	for (const row of counts) for (const [table, n] of Object.entries(row ?? {})) snapshot[table] = Number(n);
	userIds.forEach((id, i) => (snapshot[`user ${id}`] = users[i]));
	return snapshot;
}
