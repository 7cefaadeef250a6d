import { Context } from "moleculer";
import { callerOf, isAdmin } from "../../shared/caller";
import { audienceOf } from "../../shared/audience";
import { Reader } from "./posts.sql";

/** Who is looking at posts, with what private posts may reach them through (PRODUCT.md §3). */
export type Viewer = Reader;

/** The caller as a viewer; their networks come from the graph (through this node's cache) unless they cannot matter. */
export async function viewerOf(ctx: Context): Promise<Viewer> {
	const caller = callerOf(ctx);
	const admin = isAdmin(caller);
	if (admin || !caller?.userId) return { userId: caller?.userId, admin, networks: [] };
	const { networks } = await audienceOf(ctx, caller.userId);
	return { userId: caller.userId, admin, networks };
}
