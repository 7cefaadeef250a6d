import { createHash } from "node:crypto";
import { Caller } from "./caller";
import { defineCache } from "./cache/node-caches";

/** What an API key looks like (ServiceStack's ApiKeysFeature): `ak-` and 32 hex digits. */
export const apiKeyFormat = /^ak-[0-9a-f]{32}$/;

/** The store's (and the caches') key for an API key: its SHA-256, so a stored key opens nothing. */
export function apiKeyHashOf(key: string): string {
	return createHash("sha256").update(key).digest("hex");
}

/** What apiKeys.resolve answers for a live key: who it stands for, limited to its scopes, and for how long. */
export interface ResolvedApiKey {
	caller: Caller;
	/** Never past the key's expiry. */
	reusableForMs: number;
}

/** The gateway's resolved keys, by hash; a key updated or deleted is dropped on every node by its declared change. */
export const apiKeyCache = defineCache<ResolvedApiKey>("apiKeys", { max: 10_000, ttlMs: 30_000 });
