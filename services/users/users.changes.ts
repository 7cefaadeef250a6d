import { Changes } from "../../shared/changes/changes";
import { profileCache } from "../../shared/profiles";
import { sessionCache } from "../../shared/sessions";

/** What each write of the users folder changes (shared/changes/changes.ts carries it out). */

/**
 * A user was created, changed or removed: every node's profile of them (names shown beside records, credentials
 * verified moments ago) and the domain's kept answers (AllUsers pages) go.
 */
export function userChanged(userId: string): Changes {
	return { domain: "users", drops: [{ cache: profileCache, keys: [userId] }] };
}

/** A new session: nothing holds what did not exist. */
export function sessionOpened(): Changes {
	return { domain: "sessions" };
}

/** Sessions ended: no gateway may take their tokens from its cache, and their streams end (gateway/events). */
export function sessionsEnded(keys: readonly string[]): Changes {
	return { domain: "sessions", drops: [{ cache: sessionCache, keys }] };
}
