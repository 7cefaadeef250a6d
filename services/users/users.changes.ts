import { Changes } from "../../shared/changes/changes";
import { profileCache } from "../../shared/profiles";
import { sessionCache } from "../../shared/sessions";
import { apiKeyCache } from "../../shared/api-keys";

/** What each write of the users folder changes (shared/changes/changes.ts carries it out). */

/**
 * A user was created, changed or removed: every node's profile of them (names shown beside records, credentials
 * verified moments ago), what their API keys resolved to (roles, existence) and the domain's kept answers go.
 */
export function userChanged(userId: string, apiKeyHashes: readonly string[] = []): Changes {
	return {
		domain: "users",
		drops: [
			{ cache: profileCache, keys: [userId] },
			{ cache: apiKeyCache, keys: apiKeyHashes },
		],
	};
}

/** A new session: nothing holds what did not exist. */
export function sessionOpened(): Changes {
	return { domain: "sessions" };
}

/** Sessions ended: no gateway may take their tokens from its cache, and their streams end (gateway/events). */
export function sessionsEnded(keys: readonly string[]): Changes {
	return { domain: "sessions", drops: [{ cache: sessionCache, keys }] };
}

/** An API key renamed, rescoped, revoked or deleted: every gateway asks again, and streams opened with it end. */
export function apiKeyChanged(hash: string): Changes {
	return { domain: "apikeys", drops: [{ cache: apiKeyCache, keys: [hash] }] };
}
