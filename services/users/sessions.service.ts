import { randomBytes } from "node:crypto";
import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { MongoSessionsRepository, sessionsMongoMigrations } from "./sessions.mongo";
import { tokensMongoMigrations } from "./tokens.mongo";
import { SigningKeys } from "./signing-keys";
import { SessionTokens, tokenRefused } from "./session-tokens";
import { idempotencySettingsOf } from "../../shared/idempotency/settings";
import { periodicMixin } from "../../shared/persistence/periodic.mixin";
import { failures } from "../../shared/errors";
import { Caller, callerOf, SessionMeta } from "../../shared/caller";
import { ResolvedSession, sessionKeyOf } from "../../shared/sessions";
import { changed, changedNothing } from "../../shared/changes/changes";
import { sessionOpened, sessionsEnded } from "./users.changes";
import { SessionsRepository } from "./sessions.repository";
import { sessionsMigrations } from "./sessions.schema";
import { sessionsLegacy } from "./sessions.legacy";
import { typedService } from "../../shared/implement";
import { accountsOperations } from "../../shared/catalogue";

interface AuthInput {
	provider?: string;
	UserName?: string;
	Password?: string;
	RememberMe?: boolean;
	UseTokenCookie?: boolean;
	Continue?: string;
}

interface SessionsMethods {
	openSession(ctx: Context<unknown, SessionMeta>, user: Caller, persistent: boolean): Promise<string>;
	signedIn(ctx: Context<AuthInput, SessionMeta>, user: Caller): Promise<Record<string, unknown>>;
	ended(ctx: Context, keys: string[]): Promise<void>;
	purgeExpired(): Promise<void>;
	signingKeys(): SigningKeys;
	sessionTokens(): SessionTokens;
}

type SessionsVars = WithRepository<RepositoryContract<SessionsRepository>> & {
	keys?: SigningKeys;
	tokens?: SessionTokens;
};

/**
 * How often expired sessions are deleted and announced: a stream opened with one ends at most this long after it
 * expires.
 */
const purgeEveryMs = 60 * 1000;
/** A session's expiry moves forward at most once a minute (or a quarter of its life), not at every request. */
const slideEvery = (ttlMs: number) => Math.min(60 * 1000, ttlMs / 4);

const { implement, define } = typedService<SessionsMethods, SessionsVars>();

/**
 * Sessions: sign-in, the current session, sign-out, and what a session token stands for. Tokens are
 * 192 random bits; the store keeps only their SHA-256, so a copy of it opens no session. Sessions
 * are a domain of their own ("sessions": its own SQLite file, its own migrations) beside users.
 */
export function sessionsService(config: PlazaConfig): ServiceSchema {
	const ttlMs = (persistent: boolean) =>
		1000 * (persistent ? config.auth.rememberMeTtlSeconds : config.auth.sessionTtlSeconds);

	return define({
		name: "sessions",
		mixins: [
			repositoryMixin<RepositoryContract<SessionsRepository>>(config.store, {
				domain: "sessions",
				migrations: sessionsMigrations,
				create: db => new SessionsRepository(db),
				mongo: {
					migrations: [...sessionsMongoMigrations, ...tokensMongoMigrations],
					create: store => new MongoSessionsRepository(store),
				},
				legacy: sessionsLegacy,
			}),
			periodicMixin<unknown, SessionsMethods>(purgeEveryMs, "Purging expired sessions", (_repo, service) =>
				service.purgeExpired(),
			),
		],

		actions: {
			...implement(accountsOperations.Auth, async function (ctx) {
				const { UserName, Password } = ctx.params;
				const caller = callerOf(ctx);
				const provider = (ctx.params.provider || (UserName ? "credentials" : "")).toLowerCase();
				switch (provider) {
					case "": // the current session
						if (!caller?.userId) throw failures.unauthorized();
						changedNothing(ctx);
						return { UserId: caller.userId, UserName: caller.userName, DisplayName: caller.displayName };
					case "logout":
						if (caller?.sessionKey) {
							await this.repo.remove(caller.sessionKey);
							await this.ended(ctx, [caller.sessionKey]);
						} else changedNothing(ctx);
						ctx.meta.session = { end: true };
						return {};
					case "credentials": {
						if (!UserName) throw failures.field("UserName", "NotEmpty", "UserName is required");
						if (!Password) throw failures.field("Password", "NotEmpty", "Password is required");
						const user = await ctx.call<Caller, { UserName: string; Password: string }>("users.verifyCredentials", {
							UserName,
							Password,
						});
						return this.signedIn(ctx, user);
					}
					case "basic":
					case "digest":
						// The gateway has checked the Authorization header already; this turns it into a session.
						if (provider === "digest" && !config.auth.digest)
							throw failures.notFound("The provider digest (not configured)");
						// A session proves no password: it may not mint another that outlives its own sign-out.
						if (!caller?.userId || caller.sessionKey || caller.apiKey)
							throw failures.unauthorized(
								`Send your credentials in the Authorization header for the ${provider} provider`,
							);
						return this.signedIn(ctx, caller);
					default: // OAuth-style and unknown providers: none is configured
						throw failures.notFound(`The provider ${provider} (not configured)`);
				}
			}),

			/** Internal: opens a session for a user that has just proved who they are. */
			open: {
				visibility: "public",
				callers: ["users", "reservations"],
				async handler(ctx: Context<{ user: Caller; persistent: boolean }, SessionMeta>) {
					const { user, persistent } = ctx.params;
					const SessionId = await this.openSession(ctx, user, persistent);
					const session = { key: sessionKeyOf(SessionId), ttlMs: ttlMs(persistent) };
					return { SessionId, ...(await this.sessionTokens().issue(ctx, user, session, false)) };
				},
			},

			...implement(accountsOperations.GetAccessToken, async function (ctx) {
				const { RefreshToken: sent, UseTokenCookie, Scopes } = ctx.params;
				const outcome = await this.sessionTokens().refresh(ctx, sent, !!UseTokenCookie, Scopes);
				if ("stolen" in outcome) {
					// Traded twice: one of the two holders stole it, and nothing tells which. The session ends for both.
					await this.repo.remove(outcome.stolen);
					await this.repo.tokens.removeRefreshTokensOf([outcome.stolen]);
					await this.ended(ctx, [outcome.stolen]);
					this.broker
						.getLogger("audit")
						.warn({ event: "refresh-token-reused", clientIp: ctx.meta.clientIp }, "A refresh token was traded twice");
					throw tokenRefused("The refresh token was traded already: its session has ended");
				}
				await changed(ctx, sessionOpened());
				const { BearerToken, RefreshToken, RefreshTokenExpiry } = outcome.issued;
				return { AccessToken: BearerToken, accessToken: BearerToken, RefreshToken, RefreshTokenExpiry };
			}),

			...implement(accountsOperations.GetJsonWebKeySet, async function () {
				return this.signingKeys().published();
			}),

			/** Internal: the keys that verify bearer tokens, which every gateway keeps. */
			keySet: {
				visibility: "public",
				callers: ["gateway"],
				async handler() {
					return this.signingKeys().published();
				},
			},

			/**
			 * Internal: the caller a session token stands for, and for how long that answer may be reused
			 * (until the next slide is due, never past the end); null when it is unknown or expired.
			 */
			resolve: {
				visibility: "public",
				callers: ["gateway"],
				async handler(ctx: Context<{ token: string }>): Promise<ResolvedSession | null> {
					const key = sessionKeyOf(ctx.params.token);
					const session = await this.repo.find(key);
					const now = Date.now();
					if (!session) return null;
					if (session.ExpiresTime <= now) {
						await this.repo.remove(key);
						await this.ended(ctx, [key]);
						return null;
					}
					let { SlidTime: slid, ExpiresTime: ends } = session;
					if (slid + slideEvery(session.TtlMs) <= now && (await this.repo.slide(key, now)))
						[slid, ends] = [now, now + session.TtlMs];
					return {
						caller: {
							userId: session.UserId,
							userName: session.UserName,
							displayName: session.DisplayName ?? "",
							roles: session.Roles,
							sessionKey: key,
						},
						reusableForMs: Math.min(slid + slideEvery(session.TtlMs), ends) - now,
					};
				},
			},

			/**
			 * Internal: ends every session of a user (their account is gone, or their password changed), but `except` (the
			 * one that changed it).
			 */
			endAllOf: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string; except?: string }>) {
					const keys = await this.repo.removeAllOf(ctx.params.userId, ctx.params.except);
					await this.ended(ctx, keys);
					return keys.length;
				},
			},
		},

		methods: {
			async openSession(ctx: Context<unknown, SessionMeta>, user: Caller, persistent: boolean) {
				const token = randomBytes(24).toString("base64url");
				const now = Date.now();
				const ttl = ttlMs(persistent);
				await this.repo.open({
					Id: sessionKeyOf(token),
					UserId: String(user.userId),
					UserName: user.userName ?? "",
					DisplayName: user.displayName,
					Roles: user.roles,
					Persistent: persistent,
					TtlMs: ttl,
					CreatedTime: now,
					SlidTime: now,
					ExpiresTime: now + ttl,
				});
				await changed(ctx, sessionOpened());
				ctx.meta.session = { open: { token, persistent, ttlSeconds: ttl / 1000 } };
				return token;
			},

			async signedIn(ctx: Context<AuthInput, SessionMeta>, user: Caller) {
				const persistent = !!ctx.params.RememberMe;
				const SessionId = await this.openSession(ctx, user, persistent);
				const session = { key: sessionKeyOf(SessionId), ttlMs: ttlMs(persistent) };
				return {
					UserId: user.userId,
					SessionId,
					UserName: user.userName,
					DisplayName: user.displayName,
					ReferrerUrl: ctx.params.Continue || undefined,
					...(await this.sessionTokens().issue(ctx, user, session, !!ctx.params.UseTokenCookie)),
				};
			},

			signingKeys() {
				this.keys ??= new SigningKeys(
					this.repo.tokens,
					idempotencySettingsOf(this.broker).secret,
					config.auth.tokenKeyRotationSeconds * 1000,
				);
				return this.keys;
			},

			sessionTokens() {
				this.tokens ??= new SessionTokens(this.repo, this.signingKeys(), config.auth.bearerTokenTtlSeconds);
				return this.tokens;
			},

			/** Deletes the sessions ended by now, and says so like any other end: their streams too end on every gateway. */
			async purgeExpired() {
				const ctx = Context.create(this.broker);
				ctx.service = this;
				ctx.meta = {};
				await this.ended(ctx, await this.repo.removeExpired(Date.now()));
				await this.repo.tokens.removeExpiredRefreshTokens(Date.now());
			},

			/** Sessions gone: no gateway may go on taking their tokens from its cache (awaited before the answer). */
			async ended(ctx: Context, keys: string[]) {
				await changed(ctx, sessionsEnded(keys));
			},
		},
	});
}
