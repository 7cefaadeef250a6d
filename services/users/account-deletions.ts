import { Context, Logger } from "moleculer";
import { changed } from "../../shared/changes/changes";
import { failures } from "../../shared/errors";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { UsersRepository } from "./users.repository";
import { userChanged } from "./users.changes";

/** The services that keep something of a user, each forgetting it with its idempotent `forgetUser`. */
const domains = ["apiKeys", "graph", "venues", "devices", "media", "reservations", "posts", "exports"];

/**
 * An account's deletion across services, crash-safe as an order of writes: the account is first marked (no password
 * opens it, it leaves lists) and recorded as under way, in one transaction; its sessions and keys end; each domain
 * forgets the user; the account and its record go last. A deletion cut off anywhere is run again by the sweep, and
 * every step of it repeats harmlessly.
 */
export class AccountDeletions {
	constructor(
		private readonly repo: RepositoryContract<UsersRepository>,
		private readonly logger: Logger,
	) {}

	/** Whether the account is gone ("Done"), or a domain was out of reach and the sweep will finish ("Pending"). */
	async run(ctx: Context, userId: string, begin = true): Promise<"Done" | "Pending"> {
		if (begin && !(await this.repo.beginDeletion(userId, Date.now()))) throw failures.notFound(`User ${userId}`);
		await changed(ctx, userChanged(userId, await this.keysOf(ctx, userId)));
		try {
			await ctx.call<number, { userId: string }>("sessions.endAllOf", { userId });
			for (const domain of domains) await ctx.call<number, { userId: string }>(`${domain}.forgetUser`, { userId });
		} catch (err) {
			this.logger.warn(
				{ event: "account-deletion-pending", userId, error: err },
				"An account deletion waits for the sweep",
			);
			await this.repo.touchDeletion(userId, Date.now());
			return "Pending";
		}
		await this.repo.finishDeletion(userId);
		await changed(ctx, userChanged(userId));
		return "Done";
	}

	/** Finishes the deletions last attempted more than `graceMs` ago (cut off by a crash, or left pending). */
	async sweep(ctx: Context, graceMs: number): Promise<number> {
		const due = await this.repo.deletionsBefore(Date.now() - graceMs);
		for (const userId of due) await this.run(ctx, userId, false);
		return due.length;
	}

	/** The user's API keys' hashes, for their caches to drop; none when the keys' service is out of reach. */
	private async keysOf(ctx: Context, userId: string): Promise<string[]> {
		return ctx.call<string[], { userId: string }>("apiKeys.hashesOf", { userId }).catch(() => []);
	}
}
