import { Context } from "moleculer";
import { callerOf, isAdmin } from "../../shared/caller";
import { Doc, Query } from "../../shared/persistence/store";
import { readCall } from "../../shared/calls";

/** Who is looking at posts, with what private posts may reach them through (PRODUCT.md §3). */
export interface Viewer {
	userId?: string;
	admin: boolean;
	/** The networks the viewer is a member of: private posts addressed to them reach the viewer. */
	networks: string[];
}

/** The caller as a viewer; asks the graph for their networks (one call) unless that cannot matter. */
export async function viewerOf(ctx: Context): Promise<Viewer> {
	const caller = callerOf(ctx);
	const admin = isAdmin(caller);
	if (admin || !caller?.userId) return { userId: caller?.userId, admin, networks: [] };
	const { networks } = await readCall<{ networks: string[] }, { userId: string }>(ctx, "graph.audienceOf", { userId: caller.userId });
	return { userId: caller.userId, admin, networks };
}

/**
 * A private post is visible only to its author, its recipients (users, and members of recipient
 * networks) and admins. Posts store their recipients' ids in `Audience` for this query.
 */
export function visibleTo(viewer: Viewer): Query {
	if (viewer.admin) return {};
	const reach = viewer.userId ? [viewer.userId, ...viewer.networks] : viewer.networks;
	return { $or: [{ IsPrivate: false }, ...(viewer.userId ? [{ AuthorId: viewer.userId }] : []), { Audience: { $in: reach } }] };
}

export function canSee(viewer: Viewer, post: Doc): boolean {
	if (viewer.admin || !post.IsPrivate || post.AuthorId === viewer.userId) return true;
	const audience = (post.Audience as string[]) ?? [];
	return audience.some(id => id === viewer.userId || viewer.networks.includes(id));
}

/** Posts past their ExpirationDate are no longer listed (they store "no expiry" as the largest number). */
export function unexpired(now = Date.now()): Query {
	return { ExpiresAt: { $gt: now } };
}
