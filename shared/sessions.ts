import { createHash } from "node:crypto";
import { Caller } from "./caller";
import { defineCache } from "./cache/node-caches";

/** The store's (and the caches') key for a session token: its SHA-256, so a stored key opens no session. */
export function sessionKeyOf(token: string): string {
	return createHash("sha256").update(token).digest("hex");
}

/** What sessions.resolve answers for a live session: who it stands for, and how long that answer may be reused. */
export interface ResolvedSession {
	caller: Caller;
	/** Until the session's next slide is due, and never past its end. */
	reusableForMs: number;
}

/** The gateway's resolved sessions, by session key; ended sessions are invalidated by the sessions service. */
export const sessionCache = defineCache<ResolvedSession>("sessions", { max: 10_000, ttlMs: 30_000 });
