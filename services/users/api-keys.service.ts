import { randomBytes, randomInt } from "node:crypto";
import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { failures } from "../../shared/errors";
import { Caller, callerOf } from "../../shared/caller";
import { apiKeyHashOf, ResolvedApiKey } from "../../shared/api-keys";
import { changed } from "../../shared/changes/changes";
import { profilesOf } from "../../shared/profiles";
import { typedService } from "../../shared/implement";
import { apiKeysOperations } from "../../shared/catalogue";
import { checkScopes } from "../../shared/access";
import { apiKeyChanged } from "./users.changes";
import { ApiKeysRepository } from "./api-keys.repository";
import { apiKeysMigrations } from "./api-keys.schema";
import { apiKeysMongoMigrations, MongoApiKeysRepository } from "./api-keys.mongo";
import { ApiKeyChanges, ApiKeyRow } from "./api-keys.rows";

interface KeyFields {
	Name?: string;
	Scopes?: string[];
	ExpiryDate?: number;
	Notes?: string;
}

interface KeyUpdate extends KeyFields {
	Id: number;
	CancelledDate?: number;
	Reset?: string[];
}

interface PageRequest {
	Id?: number;
	Search?: string;
	Skip: number;
	Take: number;
}

interface ApiKeysMethods {
	issue(ctx: Context, userId: string, fields: KeyFields): Promise<{ Result: string }>;
	list(userId: string | undefined, request: PageRequest): Promise<{ Results: Record<string, unknown>[] }>;
	change(ctx: Context, id: number, ownerId: string | undefined, update: KeyUpdate): Promise<object>;
	remove(ctx: Context, id: number, ownerId: string | undefined): Promise<object>;
	ownedKey(id: number, ownerId: string | undefined): Promise<ApiKeyRow>;
}

/** Fields an update's `Reset` may clear. */
const resettable = new Set(["Scopes", "Notes", "ExpiryDate", "CancelledDate"]);

/** How often a new random Id is tried when one is taken (2^31 ids: a second try is already rare). */
const idAttempts = 5;

const { implement, define } = typedService<ApiKeysMethods, WithRepository<RepositoryContract<ApiKeysRepository>>>();

/**
 * API keys for programs (ServiceStack's ApiKeysFeature): a user's own, an admin's for anyone. Only a key's hash is
 * kept; the gateway resolves a key to its user, limited to its scopes, and drops it on every node when it changes.
 */
export function apiKeysService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "apiKeys",
		mixins: [
			repositoryMixin<RepositoryContract<ApiKeysRepository>>(config.store, {
				domain: "apikeys",
				migrations: apiKeysMigrations,
				create: db => new ApiKeysRepository(db),
				mongo: { migrations: apiKeysMongoMigrations, create: store => new MongoApiKeysRepository(store) },
			}),
		],

		actions: {
			...implement(apiKeysOperations.QueryUserApiKeys, async function (ctx) {
				return this.list(ownerOf(ctx), ctx.params);
			}),
			...implement(apiKeysOperations.CreateUserApiKey, async function (ctx) {
				return this.issue(ctx, ownerOf(ctx), ctx.params);
			}),
			...implement(apiKeysOperations.UpdateUserApiKey, async function (ctx) {
				return this.change(ctx, ctx.params.Id, ownerOf(ctx), ctx.params);
			}),
			...implement(apiKeysOperations.DeleteUserApiKey, async function (ctx) {
				return this.remove(ctx, ctx.params.Id, ownerOf(ctx));
			}),
			...implement(apiKeysOperations.AdminQueryApiKeys, async function (ctx) {
				return this.list(ctx.params.UserId, ctx.params);
			}),
			...implement(apiKeysOperations.AdminCreateApiKey, async function (ctx) {
				return this.issue(ctx, ctx.params.UserId, ctx.params);
			}),
			...implement(apiKeysOperations.AdminUpdateApiKey, async function (ctx) {
				return this.change(ctx, ctx.params.Id, undefined, ctx.params);
			}),
			...implement(apiKeysOperations.AdminDeleteApiKey, async function (ctx) {
				return this.remove(ctx, ctx.params.Id, undefined);
			}),

			/** Internal: removes a deleted account's keys; they stop working on every gateway at once. */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>): Promise<number> {
					const removed: string[] = [];
					const next = () => this.repo.page({ userId: ctx.params.userId }, 0, 500);
					for (let keys = await next(); keys.length; keys = await next())
						for (const key of keys) if (await this.repo.remove(key.Id)) removed.push(key.KeyHash);
					await changed(ctx, ...removed.map(apiKeyChanged));
					return removed.length;
				},
			},

			/** Internal: the hashes of a user's keys, which a change to the user drops on every gateway. */
			hashesOf: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>): Promise<string[]> {
					return this.repo.hashesOf(ctx.params.userId);
				},
			},

			/** Internal: who a live key stands for, limited to its scopes; null for an unknown, revoked or expired one. */
			resolve: {
				visibility: "public",
				callers: ["gateway"],
				async handler(ctx: Context<{ hash: string }>): Promise<ResolvedApiKey | null> {
					const key = await this.repo.byHash(ctx.params.hash);
					const now = Date.now();
					if (!key || !isActive(key, now)) return null;
					const user = await ctx.call<Caller | null, { id: string }>("users.caller", { id: key.UserId });
					if (!user) return null;
					return {
						caller: {
							...user,
							apiKey: { id: key.Id, hash: key.KeyHash },
							...(key.Scopes.length ? { scopes: key.Scopes } : {}),
						},
						reusableForMs: key.ExpiryDate === undefined ? 30_000 : Math.min(30_000, key.ExpiryDate - now),
					};
				},
			},
		},

		methods: {
			async issue(ctx: Context, userId: string, fields: KeyFields) {
				checkScopes(fields.Scopes);
				const now = Date.now();
				if (fields.ExpiryDate !== undefined && fields.ExpiryDate <= now)
					throw failures.field("ExpiryDate", "InvalidValue", "ExpiryDate must be in the future");
				if (!(await profilesOf(ctx, [userId])).has(userId)) throw failures.notFound(`User ${userId}`);
				const key = `ak-${randomBytes(16).toString("hex")}`;
				const month = new Date(now).toISOString().slice(0, 7);
				const row: ApiKeyRow = {
					Id: 0,
					KeyHash: apiKeyHashOf(key),
					VisibleKey: `ak-***${key.slice(-3)}`,
					Name: fields.Name || month,
					UserId: userId,
					Scopes: [...new Set(fields.Scopes ?? [])],
					...(fields.Notes ? { Notes: fields.Notes } : {}),
					CreatedDate: now,
					...(fields.ExpiryDate !== undefined ? { ExpiryDate: fields.ExpiryDate } : {}),
				};
				for (let attempt = 0; attempt < idAttempts; attempt++) {
					row.Id = randomInt(1, 2 ** 31);
					if (await this.repo.create(row)) {
						await changed(ctx, { domain: "apikeys" });
						return { Result: key };
					}
				}
				throw failures.serviceUnavailable();
			},

			async list(userId: string | undefined, request: PageRequest) {
				const rows =
					request.Id !== undefined
						? [await this.repo.find(request.Id)].filter(
								(row): row is ApiKeyRow => !!row && (userId === undefined || row.UserId === userId),
							)
						: await this.repo.page({ userId, search: request.Search || undefined }, request.Skip, request.Take);
				const now = Date.now();
				return { Results: rows.map(row => partialKey(row, now)) };
			},

			async change(ctx: Context, id: number, ownerId: string | undefined, update: KeyUpdate) {
				await this.ownedKey(id, ownerId);
				checkScopes(update.Scopes);
				const changes: ApiKeyChanges = {
					...(update.Name ? { Name: update.Name } : {}),
					...(update.Scopes?.length ? { Scopes: [...new Set(update.Scopes)] } : {}),
					...(update.Notes ? { Notes: update.Notes } : {}),
					...(update.ExpiryDate !== undefined ? { ExpiryDate: update.ExpiryDate } : {}),
					...(update.CancelledDate !== undefined ? { CancelledDate: update.CancelledDate } : {}),
				};
				for (const field of update.Reset ?? []) {
					if (!resettable.has(field))
						throw failures.field("Reset", "InvalidValue", `Reset names fields to clear: ${[...resettable].join(", ")}`);
					Object.assign(changes, { [field]: field === "Scopes" ? [] : null });
				}
				const updated = await this.repo.update(id, changes);
				if (!updated) throw failures.notFound(`API key ${id}`);
				await changed(ctx, apiKeyChanged(updated.KeyHash));
				return {};
			},

			async remove(ctx: Context, id: number, ownerId: string | undefined) {
				await this.ownedKey(id, ownerId);
				const removed = await this.repo.remove(id);
				if (!removed) throw failures.notFound(`API key ${id}`);
				await changed(ctx, apiKeyChanged(removed.KeyHash));
				return {};
			},

			/** The key, if it is `ownerId`'s (any key for an admin's call, `ownerId` undefined); another's is 404. */
			async ownedKey(id: number, ownerId: string | undefined) {
				const key = await this.repo.find(id);
				if (!key || (ownerId !== undefined && key.UserId !== ownerId)) throw failures.notFound(`API key ${id}`);
				return key;
			},
		},
	});
}

/**
 * The signed-in user whose own keys these are. A key cannot manage keys: one limited to some scopes could otherwise
 * make itself another without the limit.
 */
function ownerOf(ctx: Context): string {
	const caller = callerOf(ctx);
	if (caller?.apiKey) throw failures.forbidden("API keys are managed signed in with a password or session, not a key");
	if (!caller?.userId) throw failures.forbidden("API keys belong to users: the administrator's key has none");
	return caller.userId;
}

function isActive(key: ApiKeyRow, now: number): boolean {
	return key.CancelledDate === undefined && (key.ExpiryDate === undefined || key.ExpiryDate > now);
}

/** ServiceStack's PartialApiKey: what a list shows of a key. */
function partialKey(key: ApiKeyRow, now: number): Record<string, unknown> {
	const { KeyHash: _hash, ...shown } = key;
	return { ...shown, Active: isActive(key, now) };
}
