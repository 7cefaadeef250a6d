import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { catalogue } from "../../shared/catalogue";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { MongoIdempotencyRepository, idempotencyMongoMigrations } from "./idempotency.mongo";
import { expiryMixin } from "../../shared/persistence/expiry.mixin";
import { IdempotencyRepository } from "./idempotency.repository";
import { idempotencyMigrations } from "./idempotency.schema";
import { KeyClaim } from "../../shared/idempotency";
import { typedService } from "../../shared/implement";

const purgeEveryMs = 60 * 1000;

/** Every service that runs a write of the catalogue: they claim and answer keys (see runOnce). */
const writers = [...new Set(catalogue.filter(op => !op.reads).map(op => op.action.split(".")[0]))];

const { define } = typedService<object, WithRepository<RepositoryContract<IdempotencyRepository>>>();

/**
 * Idempotency keys (the Idempotency-Key header on writes), in the deployment's store so that every
 * gateway and node sees the same: a domain of its own beside limits. A claim lasts a lease (a write
 * that outlives it, or whose node died, is taken for gone); an answer is kept IDEMPOTENCY_KEY_TTL_SECONDS.
 */
export function idempotencyService(config: PlazaConfig): ServiceSchema {
	const leaseMs = Math.max(60_000, 3 * config.cluster.requestTimeoutMs);
	const keepMs = config.idempotencyKeyTtlSeconds * 1000;
	return define({
		name: "idempotency",
		mixins: [
			repositoryMixin<RepositoryContract<IdempotencyRepository>>(config.store, {
				domain: "idempotency",
				migrations: idempotencyMigrations,
				create: db => new IdempotencyRepository(db),
				mongo: { migrations: idempotencyMongoMigrations, create: store => new MongoIdempotencyRepository(store) },
			}),
			expiryMixin(purgeEveryMs, "idempotency keys"),
		],

		actions: {
			/** Internal: claims a key for a first request, else what its first request left. */
			claim: {
				visibility: "public",
				callers: writers,
				async handler(ctx: Context<{ keyId: string; fingerprint: string }>): Promise<KeyClaim> {
					const now = Date.now();
					return this.repo.claim(ctx.params.keyId, ctx.params.fingerprint, now, now + leaseMs);
				},
			},

			/** Internal: keeps the first request's sealed answer. */
			answer: {
				visibility: "public",
				callers: writers,
				async handler(ctx: Context<{ keyId: string; answer: string }>): Promise<number> {
					return this.repo.answer(ctx.params.keyId, ctx.params.answer, Date.now() + keepMs);
				},
			},

			/** Internal: gives a claim up, so that a retry runs the request again. */
			release: {
				visibility: "public",
				callers: writers,
				async handler(ctx: Context<{ keyId: string }>): Promise<number> {
					return this.repo.release(ctx.params.keyId);
				},
			},
		},
	});
}
