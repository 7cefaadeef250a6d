import { Context } from "moleculer";
import { readCall } from "./calls";
import { defineCache, cacheOf } from "./cache/node-caches";

/** What other services show of a user next to their own records (names on connections, posts, comments). */
export interface Profile {
	Id: string;
	FirstName?: string;
	LastName?: string;
	JobTitle?: string;
	DefaultVenueId?: string;
}

/**
 * Profiles by user id, on each node that shows names; the users service invalidates a user's when it changes or goes.
 */
export const profileCache = defineCache<Profile>("profiles", { max: 20_000, ttlMs: 5 * 60_000 });

/** The profiles of these users, by id: the cached ones, and the others in one call to the users service. */
export async function profilesOf(ctx: Context, ids: string[]): Promise<Map<string, Profile>> {
	const unique = [...new Set(ids.filter(Boolean))];
	if (unique.length === 0) return new Map();
	return cacheOf(ctx.broker, profileCache).throughMany(unique, async missing => {
		const profiles = await readCall<Profile[], { ids: string[] }>(ctx, "users.profiles", { ids: missing });
		return new Map(profiles.map(p => [p.Id, p]));
	});
}

/** "First Last", as a user is shown to others. */
export function displayName(profile: Profile | undefined): string | undefined {
	const name = [profile?.FirstName, profile?.LastName].filter(Boolean).join(" ");
	return name || undefined;
}
