import { Context } from "moleculer";
import { callerOf, isAdmin } from "../../shared/caller";
import { audienceOf } from "../../shared/audience";
import { Reader } from "./posts.sql";

/**
 * The caller as a reader of posts (with what private posts may reach them through, PRODUCT.md §3, and whom they block
 * either way); their networks and blocks come from the graph (through this node's cache) unless they cannot matter.
 */
export async function readerOf(ctx: Context): Promise<Reader> {
	const caller = callerOf(ctx);
	const admin = isAdmin(caller);
	if (admin || !caller?.userId) return { userId: caller?.userId, admin, networks: [], hidden: [] };
	const { networks, hidden } = await audienceOf(ctx, caller.userId);
	return { userId: caller.userId, admin, networks, hidden };
}
