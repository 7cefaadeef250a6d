import { Context } from "moleculer";
import { readCall } from "./calls";

/** What other services show of a user next to their own records (names on connections, posts, comments). */
export interface Profile {
	Id: string;
	FirstName?: string;
	LastName?: string;
	JobTitle?: string;
	DefaultVenueId?: string;
}

/** The profiles of these users, by id, in one call to the users service (none when there are no ids). */
export async function profilesOf(ctx: Context, ids: string[]): Promise<Map<string, Profile>> {
	const unique = [...new Set(ids.filter(Boolean))];
	if (unique.length === 0) return new Map();
	const profiles = await readCall<Profile[], { ids: string[] }>(ctx, "users.profiles", { ids: unique });
	return new Map(profiles.map(p => [p.Id, p]));
}

/** "First Last", as a user is shown to others. */
export function displayName(profile: Profile | undefined): string | undefined {
	const name = [profile?.FirstName, profile?.LastName].filter(Boolean).join(" ");
	return name || undefined;
}
