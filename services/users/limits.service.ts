import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { MongoLimitsRepository, limitsMongoMigrations } from "./limits.mongo";
import { expiryMixin } from "../../shared/persistence/expiry.mixin";
import { AddAttempts, AttemptTotals, WindowCount } from "../../shared/attempts";
import { LimitsRepository } from "./limits.repository";
import { limitsMigrations } from "./limits.schema";
import { typedService } from "../../shared/implement";

type LimitsVars = WithRepository<RepositoryContract<LimitsRepository>>;

const purgeEveryMs = 60 * 1000;

const { define } = typedService<object, LimitsVars>();

/**
 * The attempt counters of every limit (request budgets, failed sign-ins, trusted addresses), in the
 * deployment's store so that they hold across gateways, users nodes and restarts: a domain of its
 * own ("limits": its own SQLite file, its own migrations) beside users. Gateways send their counts
 * in batches; sign-ins write theirs directly.
 */
export function limitsService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "limits",
		mixins: [
			repositoryMixin<RepositoryContract<LimitsRepository>>(config.store, {
				domain: "limits",
				migrations: limitsMigrations,
				create: db => new LimitsRepository(db),
				mongo: { migrations: limitsMongoMigrations, create: store => new MongoLimitsRepository(store) },
			}),
			expiryMixin(purgeEveryMs, "attempt counters"),
		],

		actions: {
			/** Internal: adds counts to their keys' counters of one window; the new totals. */
			add: {
				visibility: "public",
				callers: ["gateway", "users"],
				async handler(ctx: Context<AddAttempts>): Promise<AttemptTotals> {
					const { window, windowMs, keepMs = 0, counts } = ctx.params;
					return this.repo.add(window, windowMs, window + windowMs + keepMs, counts);
				},
			},

			/** Internal: the windows of these keys still kept, oldest first. */
			windows: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ keys: string[] }>): Promise<WindowCount[]> {
					return this.repo.windowsOf(ctx.params.keys, Date.now());
				},
			},

			/** Internal: forgets these keys' counts. */
			clear: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ keys: string[] }>): Promise<number> {
					return this.repo.clear(ctx.params.keys);
				},
			},
		},
	});
}
