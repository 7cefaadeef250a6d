import { Context } from "moleculer";
import { callerOf, isAdmin } from "../../shared/caller";
import { readCall } from "../../shared/calls";
import { Reader } from "./posts.sql";

/** Who is looking at posts, with what private posts may reach them through (PRODUCT.md §3). */
export type Viewer = Reader;

/** The caller as a viewer; asks the graph for their networks (one call) unless that cannot matter. */
export async function viewerOf(ctx: Context): Promise<Viewer> {
	const caller = callerOf(ctx);
	const admin = isAdmin(caller);
	if (admin || !caller?.userId) return { userId: caller?.userId, admin, networks: [] };
	const { networks } = await readCall<{ networks: string[] }, { userId: string }>(ctx, "graph.audienceOf", { userId: caller.userId });
	return { userId: caller.userId, admin, networks };
}
