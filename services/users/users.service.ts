import { Context, ServiceSchema } from "moleculer";
import { periodicMixin } from "../../shared/persistence/periodic.mixin";
import { AccountDeletions } from "./account-deletions";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { MongoUsersRepository, usersMongoMigrations } from "./users.mongo";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { Caller, callerOf, isAdmin, SessionMeta } from "../../shared/caller";
import {
	hashPassword,
	hashPasswordWithin,
	verifyPassword,
	decoyHash,
	needsRehash,
	currentCost,
	owaspCost,
	limitHashWait,
} from "../../shared/passwords";
import { DigestAnswer, digestHa1, digestMatches, nonceCount, nonceLifetimeMs } from "../../shared/digest";
import { Profile, profileCache } from "../../shared/profiles";
import { withoutEmail } from "../../shared/emails";
import { changed } from "../../shared/changes/changes";
import { userChanged } from "./users.changes";
import { onInvalidation } from "../../shared/cache/node-caches";
import { readCall, timeLeftMs } from "../../shared/calls";
import { SignInLimits } from "./sign-in-limits";
import { AccountRow, UserChanges, UserRow, UsersRepository } from "./users.repository";
import { usersMigrations } from "./users.schema";
import { usersLegacy } from "./users.legacy";
import { VerifiedCredentials } from "./verified-credentials";
import { typedService } from "../../shared/implement";
import { accountsOperations, usersOperations } from "../../shared/catalogue";

/** UpdateUser's fields: the profile, and a new Password (with the CurrentPassword, unless an admin sets it). */
type ProfileUpdate = UserChanges & { Password?: string; CurrentPassword?: string };

interface RegistrationInput {
	UserName?: string;
	FirstName?: string;
	LastName?: string;
	DisplayName?: string;
	Email?: string;
	Password: string;
	AutoLogin?: boolean;
	Continue?: string;
}

/**
 * An account as registration or an accepted invitation makes it; `Id` lets the inviter choose (and record) it first.
 */
type AccountInput = RegistrationInput & { Id?: string; DefaultVenueId?: string };

interface UsersMethods {
	user(id: string): Promise<UserRow>;
	withGraph(ctx: Context, users: UserRow[]): Promise<Record<string, unknown>[]>;
	updateProfile(ctx: Context, id: string, changes: ProfileUpdate): Promise<UserRow>;
	apiKeysOf(ctx: Context, userId: string): Promise<string[]>;
	checkCurrentPassword(
		ctx: Context<unknown, SessionMeta>,
		id: string,
		current: string | undefined,
		field?: string,
	): Promise<void>;
	rehash(account: AccountRow, password: string): Promise<void>;
	createAccount(ctx: Context, fields: AccountInput): Promise<UserRow>;
	checkVenue(ctx: Context, venueId: string): Promise<void>;
	signIn(
		ctx: Context<unknown, SessionMeta>,
		login: string,
		proves: (account: AccountRow | undefined) => Promise<boolean>,
	): Promise<Caller>;
}

interface UsersVars extends WithRepository<RepositoryContract<UsersRepository>> {
	limits: SignInLimits;
	verified: VerifiedCredentials;
	deletions: AccountDeletions;
}

const { implement, define } = typedService<UsersMethods, UsersVars>();

/**
 * How long a new password's hash may take, so that its write is answered before the caller gives up
 * (undefined: no limit). What is kept back is for the write, a session for AutoLogin and the answer's
 * way back: 1 s, or a quarter of a shorter call's time.
 */
function hashTimeOf(ctx: Context): number | undefined {
	const left = timeLeftMs(ctx);
	return left === undefined ? undefined : left - Math.min(1000, (ctx.options.timeout ?? 0) / 4);
}

/** Users: their profiles and their accounts (credentials). Sessions live in the sessions service beside it. */
export function usersService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "users",
		mixins: [
			repositoryMixin<RepositoryContract<UsersRepository>>(config.store, {
				domain: "users",
				migrations: usersMigrations,
				create: db => new UsersRepository(db),
				mongo: { migrations: usersMongoMigrations, create: store => new MongoUsersRepository(store) },
				legacy: usersLegacy,
			}),
			periodicMixin<unknown, { deletions: AccountDeletions }>(
				config.accountDeletionSweepSeconds * 1000,
				"Finishing account deletions",
				async (_repo, service) => {
					// A call of this service, as the domains' forgetUser actions take only their known callers.
					const ctx = Context.create(service.broker);
					ctx.service = service;
					ctx.meta = {};
					// One not attempted for a whole period was cut off (or waits for a domain): taken up again.
					await service.deletions.sweep(ctx, config.accountDeletionSweepSeconds * 1000);
				},
			),
		],

		created() {
			// Half the call's time for the password hash to start and finish; the rest for the account's records.
			limitHashWait(config.cluster.requestTimeoutMs / 2);
			this.limits = new SignInLimits(config.auth, (details, message) => this.logger.warn(details, message));
			this.deletions = new AccountDeletions(this.repo, this.logger);
		},

		started() {
			this.verified = new VerifiedCredentials();
			// A user's profile invalidation (any write to them, or their removal) also drops their verified credentials.
			onInvalidation(this.broker, (cache, userIds) => {
				if (cache === profileCache.name) this.verified.drop(userIds);
			});
			if (currentCost().N < owaspCost.N)
				this.logger.warn("PASSWORD_HASH_COST=test: passwords are hashed below OWASP's minimum (for test suites only)");
		},

		actions: {
			...implement(usersOperations.CreateUser, async function (ctx) {
				const { CreatedTime = Date.now(), ...fields } = ctx.params;
				checkUserName(fields.UserName);
				if (fields.DefaultVenueId) await this.checkVenue(ctx, fields.DefaultVenueId);
				const user = await this.repo.create({ ...fields, Id: newGuid(), CreatedTime, UpdatedTime: CreatedTime });
				await changed(ctx, userChanged(user.Id));
				return user;
			}),

			...implement(usersOperations.FindUser, async function (ctx) {
				const user = (await this.withGraph(ctx, [await this.user(ctx.params.Id)]))[0];
				return emailFor(callerOf(ctx), user);
			}),

			...implement(usersOperations.AllUsers, async function (ctx) {
				const caller = callerOf(ctx);
				const admin = isAdmin(caller);
				const users = await this.withGraph(ctx, await this.repo.page(ctx.params, { admin, userId: caller?.userId }));
				// Who else gets this very page: every admin; every signed-in user who is not cloaked (a cloaked one also sees
				// themselves).
				const cloaked = !admin && !!caller?.userId && (await this.repo.find(caller.userId))?.Cloaked !== false;
				ctx.meta.responseScope = admin ? "admins" : cloaked ? undefined : "members";
				// A list carries e-mail addresses to admins only, the caller's own included (FindUser shows it to them):
				// so every member gets the very same page, which the gateway keeps once for all of them.
				return admin ? users : users.map(withoutEmail);
			}),

			/** Internal: what other services show of users next to their records. */
			profiles: {
				visibility: "public",
				callers: ["graph", "posts", "systems", "venues", "apiKeys", "reports"],
				async handler(ctx: Context<{ ids: string[] }>): Promise<Profile[]> {
					return this.repo.profiles(ctx.params.ids);
				},
			},

			...implement(usersOperations.UpdateUser, async function (ctx) {
				const { Id, ...changes } = ctx.params;
				return this.updateProfile(ctx, Id, changes);
			}),

			...implement(usersOperations.UpdateUserInternal, async function (ctx) {
				const { Id, ...changes } = ctx.params;
				return this.updateProfile(ctx, Id, changes);
			}),

			...implement(accountsOperations.Registration, async function (ctx) {
				const { AutoLogin, Continue } = ctx.params;
				const user = await this.createAccount(ctx, ctx.params);
				const response: Record<string, unknown> = {
					UserId: user.Id,
					UserName: user.UserName ?? user.Email,
					ReferrerUrl: Continue || undefined,
				};
				if (!AutoLogin) return response;
				// The session, with its bearer and refresh tokens (RegistrationResponse has them, as ServiceStack's).
				const session = await ctx.call<Record<string, unknown>, { user: Caller; persistent: boolean }>(
					"sessions.open",
					{
						user: callerFor(user),
						persistent: false,
					},
				);
				return { ...response, ...session };
			}),

			...implement(accountsOperations.DeleteAccount, async function (ctx) {
				const { Id, Password } = ctx.params;
				// Proven with the password, as a password change is (a borrowed session is not enough); not for admins.
				await this.checkCurrentPassword(ctx, Id, Password || undefined, "Password");
				return { UserId: Id, Status: await this.deletions.run(ctx, Id) };
			}),

			/** Internal: hides a user from other users' lists, as an administrator acting on a report does. */
			cloak: {
				visibility: "public",
				callers: ["reports"],
				async handler(ctx: Context<{ id: string }>) {
					if (!(await this.repo.update(ctx.params.id, { Cloaked: true }, Date.now())))
						throw failures.notFound(`User ${ctx.params.id}`);
					await changed(ctx, userChanged(ctx.params.id, await this.apiKeysOf(ctx, ctx.params.id)));
					return true;
				},
			},

			/** Internal: who a user is as a caller (roles included), for a credential that stands for them; null if gone. */
			caller: {
				visibility: "public",
				callers: ["apiKeys"],
				async handler(ctx: Context<{ id: string }>): Promise<Caller | null> {
					const user = await this.repo.find(ctx.params.id);
					return user ? callerFor(user) : null;
				},
			},

			/** Internal: an account made for an accepted invitation (no session: the caller opens one when all is done). */
			createAccount: {
				visibility: "public",
				callers: ["reservations"],
				async handler(ctx: Context<AccountInput>) {
					const user = await this.createAccount(ctx, ctx.params);
					return { UserId: user.Id, UserName: user.UserName ?? user.Email, user: callerFor(user) };
				},
			},

			/**
			 * Internal: takes back an account made moments ago, when what it was made for failed, with its
			 * sessions. The account goes first, so no session can be opened for it afterwards; a retry
			 * finishes what a failure left.
			 */
			removeAccount: {
				visibility: "public",
				callers: ["reservations"],
				async handler(ctx: Context<{ id: string }>) {
					await this.repo.remove(ctx.params.id);
					await changed(ctx, userChanged(ctx.params.id, await this.apiKeysOf(ctx, ctx.params.id)));
					await ctx.call<number, { userId: string }>("sessions.endAllOf", { userId: ctx.params.id });
					return true;
				},
			},

			/**
			 * Internal: the account behind a user name (or e-mail) and password, or 401; limited per account and
			 * address. A pair verified in the last minute is answered without another scrypt (HTTP Basic sends it
			 * with every request); a hash cheaper than today's cost is replaced at sign-in.
			 */
			verifyCredentials: {
				visibility: "public",
				callers: ["gateway", "sessions"],
				async handler(ctx: Context<{ UserName: string; Password: string }, SessionMeta>) {
					const { UserName, Password } = ctx.params;
					const known = this.verified.find(UserName, Password, ctx.meta.clientIp);
					if (known) return known;
					const mark = this.verified.mark();
					let outdated: AccountRow | undefined;
					const caller = await this.signIn(ctx, UserName, async account => {
						// An unknown account costs a hash too, so that timing tells nobody which accounts exist.
						const matches = await verifyPassword(Password, account?.PasswordHash ?? (await decoyHash()));
						if (matches && account?.PasswordHash && needsRehash(account.PasswordHash)) outdated = account;
						return !!account && matches;
					});
					if (outdated) await this.rehash(outdated, Password);
					this.verified.keep(UserName, Password, ctx.meta.clientIp, caller, mark);
					return caller;
				},
			},

			/** Internal: the account behind an HTTP Digest answer (when Digest is on), or 401. */
			verifyDigest: {
				visibility: "public",
				callers: ["gateway"],
				async handler(ctx: Context<DigestAnswer, SessionMeta>) {
					if (!config.auth.digest) throw failures.unauthorized("Digest authentication is not enabled");
					return this.signIn(ctx, ctx.params.username, async account => {
						if (!account?.DigestHa1 || !digestMatches(ctx.params, account.DigestHa1)) return false;
						// A replay: the same nonce with a count not higher than one it was answered with (kept past the nonce's
						// life, for clock skew).
						const count = nonceCount(ctx.params);
						const now = Date.now();
						return (
							count !== undefined && this.repo.useDigestNonce(ctx.params.nonce, count, now, now - 2 * nonceLifetimeMs)
						);
					});
				},
			},
		},

		methods: {
			async user(id: string) {
				const user = await this.repo.find(id);
				if (!user) throw failures.notFound(`User ${id}`);
				return user;
			},

			/** User records with their Connections, Networks and Subscriptions: one call to the graph for the whole page. */
			async withGraph(ctx: Context, users: UserRow[]) {
				if (users.length === 0) return [];
				const graph = await readCall<Record<string, Record<string, unknown>>, { userIds: string[] }>(
					ctx,
					"graph.embedFor",
					{ userIds: users.map(u => u.Id) },
				);
				return users.map(user => ({ ...user, ...graph[user.Id] }));
			},

			async updateProfile(ctx: Context, id: string, changes: ProfileUpdate) {
				const { Password, CurrentPassword, ...profile } = changes;
				checkUserName(profile.UserName);
				if (profile.DefaultVenueId) await this.checkVenue(ctx, profile.DefaultVenueId);
				if (Password !== undefined) await this.checkCurrentPassword(ctx, id, CurrentPassword);
				// The new password's hash before any write: refused (503, nothing done), it leaves the profile as it was.
				const hash = Password === undefined ? undefined : await hashPasswordWithin(Password, hashTimeOf(ctx));
				const updated = await this.repo.update(id, profile, Date.now());
				if (!updated) throw failures.notFound(`User ${id}`);
				if (Password !== undefined && hash !== undefined) {
					const login = updated.UserName ?? updated.Email ?? "";
					await this.repo.setCredentials(id, hash, config.auth.digest ? digestHa1(login, Password) : undefined);
					// Whoever held the old password (or a session opened with it) is out; the session that changed it stays.
					const caller = callerOf(ctx);
					const except = caller?.userId === id ? caller.sessionKey : undefined;
					await ctx.call<number, { userId: string; except?: string }>("sessions.endAllOf", { userId: id, except });
				}
				await changed(ctx, userChanged(id, await this.apiKeysOf(ctx, id)));
				return updated;
			},

			/**
			 * A user changing their own password proves the current one first (a borrowed session is not enough);
			 * an admin needs not. The proof is a sign-in attempt, under the same limits: a borrowed session is no
			 * oracle for guessing the password.
			 */
			async checkCurrentPassword(
				ctx: Context<unknown, SessionMeta>,
				id: string,
				current: string | undefined,
				field: string = "CurrentPassword",
			) {
				if (isAdmin(callerOf(ctx))) return;
				if (!current) throw failures.field(field, "NotEmpty", `${field} is required to do this`);
				const account = await this.repo.accountById(id);
				if (!account) throw failures.notFound(`User ${id}`);
				try {
					await this.signIn(
						ctx,
						account.UserName ?? account.Email ?? "",
						async found => found?.Id === id && !!found.PasswordHash && verifyPassword(current, found.PasswordHash),
					);
				} catch (err) {
					if ((err as { code?: number }).code !== 401) throw err;
					throw failures.field(field, "InvalidValue", `${field} is not the current password`);
				}
			},

			/** The same password hashed at today's cost, unless the hash changed meanwhile (a new password wins). */
			async rehash(account: AccountRow, password: string) {
				try {
					await this.repo.replaceHash(account.Id, account.PasswordHash ?? "", await hashPassword(password));
				} catch (err) {
					this.logger.warn(`Re-hashing the password of user ${account.Id} failed; the next sign-in tries again:`, err);
				}
			},

			/** A user with credentials; UserName and Email are unique (409 naming the field). */
			async createAccount(ctx: Context, fields: AccountInput) {
				const { UserName, Email, Password, DisplayName, DefaultVenueId } = fields;
				const login = UserName || Email;
				if (!login) throw failures.field("UserName", "NotEmpty", "UserName or Email is required");
				checkUserName(UserName);
				const [first, ...rest] = (DisplayName ?? "").split(/\s+/).filter(Boolean);
				const now = Date.now();
				const user = await this.repo.create({
					Id: fields.Id ?? newGuid(),
					UserName,
					Email,
					DisplayName,
					DefaultVenueId,
					FirstName: fields.FirstName || first,
					LastName: fields.LastName || rest.join(" "),
					PasswordHash: await hashPasswordWithin(Password, hashTimeOf(ctx)),
					DigestHa1: config.auth.digest ? digestHa1(login, Password) : undefined,
					CreatedTime: now,
					UpdatedTime: now,
				});
				await changed(ctx, userChanged(user.Id));
				return user;
			},

			/** The hashes of a user's API keys: what they resolve to changes with the user. */
			async apiKeysOf(ctx: Context, userId: string) {
				return ctx.call<string[], { userId: string }>("apiKeys.hashesOf", { userId });
			},

			/** 404 unless the venue exists: a DefaultVenueId points at a real venue. */
			async checkVenue(ctx: Context, venueId: string) {
				const found = await readCall<unknown[], { ids: string[] }>(ctx, "venues.byIds", { ids: [venueId] });
				if (found.length === 0) throw failures.notFound(`Venue ${venueId}`);
			},

			async signIn(
				ctx: Context<unknown, SessionMeta>,
				login: string,
				proves: (account: AccountRow | undefined) => Promise<boolean>,
			) {
				const account = await this.repo.account(login);
				const attempt = { login, accountId: account?.Id, address: ctx.meta.clientIp };
				const proved = await this.limits.attempt(ctx, attempt, async () => (await proves(account)) && !!account);
				if (!proved || !account) throw failures.unauthorized("Invalid UserName or Password");
				return callerFor(account);
			},
		},
	});
}

/**
 * A user name may not have the form of an e-mail address (PRODUCT.md §3): it would take over that address's sign-in.
 */
function checkUserName(userName: string | undefined): void {
	if (userName?.includes("@")) throw failures.field("UserName", "InvalidValue", "A user name may not contain @");
}

/** A user's Email is written only to that user and to admins (PRODUCT.md §3). */
function emailFor(caller: Caller | undefined, user: Record<string, unknown>): Record<string, unknown> {
	return isAdmin(caller) || (!!caller?.userId && caller.userId === user.Id) ? user : withoutEmail(user);
}

/** Who a signed-in user is, as every service sees it. */
function callerFor(user: UserRow): Caller {
	const name = [user.FirstName, user.LastName].filter(Boolean).join(" ");
	return {
		userId: user.Id,
		userName: user.UserName ?? user.Email ?? "",
		displayName: user.DisplayName ?? name,
		roles: user.Roles,
	};
}
