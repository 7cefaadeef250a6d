import { Context } from "moleculer";
import { readCall } from "../../shared/calls";
import { failures } from "../../shared/errors";
import { audienceOf } from "../../shared/audience";

/**
 * 403 unless a post's ContextId names its author, a network or venue the author belongs to, or a user
 * the author is connected to (PRODUCT.md §3): nobody posts into a context that is not theirs.
 */
export async function checkContext(ctx: Context, authorId: string, contextId: string | undefined): Promise<void> {
	if (!contextId || contextId === authorId) return;
	if (
		await readCall<boolean, { userId: string; contextId: string }>(ctx, "graph.isContextOf", {
			userId: authorId,
			contextId,
		})
	)
		return;
	if (
		await readCall<boolean, { venueId: string; userId: string }>(ctx, "venues.isMember", {
			venueId: contextId,
			userId: authorId,
		})
	)
		return;
	throw failures.forbidden(
		"ContextId must be yourself, a network or venue you belong to, or a user you are connected to",
	);
}

/**
 * 403 when a post would name (as its context or a recipient) a user its author blocks or is blocked by: a block keeps
 * each out of the other's posts.
 */
export async function checkUnblocked(ctx: Context, authorId: string, named: readonly string[]): Promise<void> {
	if (named.length === 0) return;
	const { hidden } = await audienceOf(ctx, authorId);
	if (named.some(id => hidden.includes(id)))
		throw failures.forbidden("One of these users blocks the other: a post cannot name them");
}
