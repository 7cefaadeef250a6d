import { Context } from "moleculer";
import { Profile, profilesOf } from "../../shared/profiles";
import { ConnectionRow } from "./connections.repository";
import { NetworkMemberRow, NetworkRow } from "./networks.repository";
import { RestrictionRow } from "./restrictions.repository";

/**
 * Connection records (SPEC.md §2.2): each with the names of the user it points at, from one call to the users service.
 */
export function connectionRecords(ctx: Context, rows: ConnectionRow[]): Promise<Record<string, unknown>[]> {
	return withUsers(ctx, rows, (r, user) => ({
		Id: r.Id,
		OwnerId: r.OwnerId,
		UserId: r.UserId,
		UserDefaultVenueId: user?.DefaultVenueId,
		FirstName: user?.FirstName,
		LastName: user?.LastName,
		IsFavorite: r.IsFavorite,
	}));
}

/** NetworkMember records (PRODUCT.md §4): each with the member's names, from one call to the users service. */
export function memberRecords(ctx: Context, rows: NetworkMemberRow[]): Promise<Record<string, unknown>[]> {
	return withUsers(ctx, rows, (r, user) => ({
		Id: r.Id,
		NetworkId: r.NetworkId,
		UserId: r.UserId,
		FirstName: user?.FirstName,
		LastName: user?.LastName,
		CreatedTime: r.CreatedTime,
	}));
}

/** A Network record (SPEC.md §2.3), without what a query added to it. */
export const networkRecord = (n: NetworkRow): NetworkRow => ({
	Id: n.Id,
	Name: n.Name,
	OwnerId: n.OwnerId,
	NumberOfMembers: Number(n.NumberOfMembers),
	IsOpen: n.IsOpen,
});

/** Block or Mute records: each names the user under `idField` (BlockedId, MutedId), with their names (one call). */
export function restrictionRecords(
	ctx: Context,
	rows: RestrictionRow[],
	idField: "BlockedId" | "MutedId",
): Promise<Record<string, unknown>[]> {
	return withUsers(ctx, rows, (r, user) => ({
		OwnerId: r.OwnerId,
		[idField]: r.UserId,
		FirstName: user?.FirstName,
		LastName: user?.LastName,
		CreatedTime: r.CreatedTime,
	}));
}

/** Records of rows that each name a user (`UserId`), made with that user's profile: all fetched in one call. */
async function withUsers<R extends { UserId: string }>(
	ctx: Context,
	rows: R[],
	record: (row: R, user: Profile | undefined) => Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
	const users = await profilesOf(
		ctx,
		rows.map(r => r.UserId),
	);
	return rows.map(r => record(r, users.get(r.UserId)));
}
