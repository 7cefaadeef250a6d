import { createHmac, randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import { Caller } from "../../shared/caller";

/** How long a verified user name and password stand without another scrypt. */
export const verifiedForMs = 60_000;

interface Verified {
	caller: Caller;
}

/**
 * User names with passwords verified moments ago, on this node (HTTP Basic sends them with every request, and each
 * check is a full scrypt), keyed by an HMAC under a key that never leaves the process: nothing here helps guess a
 * password. Only successes are kept; a write to a user drops its entries on every node (the profile invalidation),
 * and a verification under way when such a write was heard is not kept.
 */
export class VerifiedCredentials {
	private readonly key = randomBytes(32);

	private readonly verified = new LRUCache<string, Verified>({
		max: 10_000,
		ttl: verifiedForMs,
		dispose: (entry, key) => this.unindex(entry.caller.userId, key),
	});

	/** The keys of each user's entries, to drop them all when the user changes. */
	private readonly keysOf = new Map<string, Set<string>>();

	/** When each user was last written to (by the count of writes heard), for verifications in flight meanwhile. */
	private readonly changedAt = new LRUCache<string, number>({ max: 100_000, ttl: verifiedForMs });

	private heard = 0;

	/** Where a verification starts: pass it to `keep`. */
	mark(): number {
		return this.heard;
	}

	find(login: string, password: string, address: string | undefined): Caller | undefined {
		const caller = this.verified.get(this.keyOf(login, password, address))?.caller;
		return caller && { ...caller, roles: [...caller.roles] };
	}

	/** Keeps a caller whose password was just verified, unless their record changed since `mark`. */
	keep(login: string, password: string, address: string | undefined, caller: Caller, mark: number): void {
		const userId = caller.userId;
		if (!userId || (this.changedAt.get(userId) ?? 0) > mark) return;
		const key = this.keyOf(login, password, address);
		this.verified.set(key, { caller: { ...caller, roles: [...caller.roles] } });
		let keys = this.keysOf.get(userId);
		if (!keys) this.keysOf.set(userId, (keys = new Set()));
		keys.add(key);
	}

	/** These users changed (or went): their verified credentials are forgotten. */
	drop(userIds: readonly string[]): void {
		this.heard += 1;
		for (const userId of userIds) {
			this.changedAt.set(userId, this.heard);
			for (const key of [...(this.keysOf.get(userId) ?? [])]) this.verified.delete(key);
			this.keysOf.delete(userId);
		}
	}

	private unindex(userId: string | undefined, key: string): void {
		const keys = userId ? this.keysOf.get(userId) : undefined;
		keys?.delete(key);
		if (userId && keys?.size === 0) this.keysOf.delete(userId);
	}

	/**
	 * The login is case-folded as sign-in finds accounts; NULs separate the parts (no field can hold one).
	 * The client address is part of the key: a pair verified from one address is no answer to another,
	 * whose attempts the sign-in limits must see (else a locked-out guesser would learn the right
	 * password from the 200 a recent sign-in of the owner left here).
	 */
	private keyOf(login: string, password: string, address: string | undefined): string {
		return createHmac("sha256", this.key)
			.update(`${login.toLowerCase()}\0${password}\0${address ?? ""}`)
			.digest("base64");
	}
}
