import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, WithRepository } from "../../shared/persistence/repository.mixin";
import { Page } from "../../shared/persistence/sql/paging";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { Caller, CallerMeta, ResponseScopeMeta, callerOf, isAdmin, SessionMeta } from "../../shared/caller";
import { hashPassword, verifyPassword, decoyHash } from "../../shared/passwords";
import { DigestAnswer, digestHa1, digestMatches } from "../../shared/digest";
import { Profile, profileCache } from "../../shared/profiles";
import { invalidate } from "../../shared/cache/invalidation";
import { readCall } from "../../shared/calls";
import { SignInLimits } from "./sign-in-limits";
import { AccountRow, UserChanges, UserRow, UsersRepository } from "./users.repository";
import { usersMigrations } from "./users.schema";
import { usersLegacy } from "./users.legacy";

/** CreateUser's fields as the catalogue delivers them ("" means none); CreatedTime lets an admin import users. */
type ProfileInput = UserChanges & { CreatedTime?: number };

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

/** An account as registration or an accepted invitation makes it; `Id` lets the inviter choose (and record) it first. */
type AccountInput = RegistrationInput & { Id?: string; DefaultVenueId?: string };

interface UsersMethods {
	user(id: string): Promise<UserRow>;
	withGraph(ctx: Context, users: UserRow[]): Promise<Record<string, unknown>[]>;
	updateProfile(ctx: Context, id: string, changes: UserChanges): Promise<UserRow>;
	createAccount(fields: AccountInput): Promise<UserRow>;
	checkVenue(ctx: Context, venueId: string): Promise<void>;
	signIn(ctx: Context<unknown, SessionMeta>, login: string, proves: (account: AccountRow | undefined) => Promise<boolean>): Promise<Caller>;
}

interface UsersVars extends WithRepository<UsersRepository> {
	limits: SignInLimits;
}

type UsersThis = Service & UsersVars & UsersMethods;

/** Users: their profiles and their accounts (credentials). Sessions live in the sessions service beside it. */
export function usersService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, UsersMethods, UsersVars> = {
		name: "users",
		mixins: [repositoryMixin(config.store, { domain: "users", migrations: usersMigrations, create: db => new UsersRepository(db), legacy: usersLegacy })],

		created(this: UsersThis) {
			this.limits = new SignInLimits(config.auth, (message, details) => this.logger.warn(message, details));
		},

		actions: {
			async create(this: UsersThis, ctx: Context<ProfileInput>) {
				const { CreatedTime = Date.now(), ...fields } = ctx.params;
				if (fields.DefaultVenueId) await this.checkVenue(ctx, fields.DefaultVenueId);
				return this.repo.create({ ...fields, Id: newGuid(), CreatedTime, UpdatedTime: CreatedTime });
			},

			async find(this: UsersThis, ctx: Context<{ Id: string }>) {
				return (await this.withGraph(ctx, [await this.user(ctx.params.Id)]))[0];
			},

			async list(this: UsersThis, ctx: Context<Page, CallerMeta & ResponseScopeMeta>) {
				const caller = callerOf(ctx);
				const admin = isAdmin(caller);
				const users = await this.withGraph(ctx, await this.repo.page(ctx.params, { admin, userId: caller?.userId }));
				// Who else gets this very page: every admin; every signed-in user who is not cloaked (a cloaked one also sees themselves).
				const cloaked = !admin && !!caller?.userId && (await this.repo.find(caller.userId))?.Cloaked !== false;
				ctx.meta.responseScope = admin ? "admins" : cloaked ? undefined : "members";
				return users;
			},

			/** Internal: what other services show of users next to their records. */
			profiles: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<{ ids: string[] }>): Promise<Profile[]> {
					return this.repo.profiles(ctx.params.ids);
				},
			},

			async update(this: UsersThis, ctx: Context<UserChanges & { Id: string }>) {
				const { Id, ...changes } = ctx.params;
				return this.updateProfile(ctx, Id, changes);
			},

			async updateInternal(this: UsersThis, ctx: Context<UserChanges & { Id: string }>) {
				const { Id, ...changes } = ctx.params;
				return this.updateProfile(ctx, Id, changes);
			},

			async register(this: UsersThis, ctx: Context<RegistrationInput, SessionMeta>) {
				const { AutoLogin, Continue } = ctx.params;
				const user = await this.createAccount(ctx.params);
				const response: Record<string, unknown> = { UserId: user.Id, UserName: user.UserName ?? user.Email, ReferrerUrl: Continue || undefined };
				if (AutoLogin) {
					const session = await ctx.call<{ SessionId: string }, { user: Caller; persistent: boolean }>("sessions.open", { user: callerFor(user), persistent: false });
					response.SessionId = session.SessionId;
				}
				return response;
			},

			/** Internal: an account made for an accepted invitation (no session: the caller opens one when all is done). */
			createAccount: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<AccountInput>) {
					const user = await this.createAccount(ctx.params);
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
				async handler(this: UsersThis, ctx: Context<{ id: string }>) {
					await this.repo.remove(ctx.params.id);
					await invalidate(ctx, profileCache, [ctx.params.id]);
					await ctx.call<number, { userId: string }>("sessions.endAllOf", { userId: ctx.params.id });
					return true;
				},
			},

			/** Internal: the account behind a user name (or e-mail) and password, or 401; limited per account and address. */
			verifyCredentials: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<{ UserName: string; Password: string }, SessionMeta>) {
					const { Password } = ctx.params;
					return this.signIn(ctx, ctx.params.UserName, async account => {
						// An unknown account costs a hash too, so that timing tells nobody which accounts exist.
						const matches = await verifyPassword(Password, account?.PasswordHash ?? (await decoyHash));
						return !!account && matches;
					});
				},
			},

			/** Internal: the account behind an HTTP Digest answer (when Digest is on), or 401. */
			verifyDigest: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<DigestAnswer, SessionMeta>) {
					if (!config.auth.digest) throw failures.unauthorized("Digest authentication is not enabled");
					return this.signIn(ctx, ctx.params.username, async account => !!account?.DigestHa1 && digestMatches(ctx.params, account.DigestHa1));
				},
			},
		},

		methods: {
			async user(this: UsersThis, id: string) {
				const user = await this.repo.find(id);
				if (!user) throw failures.notFound(`User ${id}`);
				return user;
			},

			/** User records with their Connections, Networks and Subscriptions: one call to the graph for the whole page. */
			async withGraph(this: UsersThis, ctx: Context, users: UserRow[]) {
				if (users.length === 0) return [];
				const graph = await readCall<Record<string, Record<string, unknown>>, { userIds: string[] }>(ctx, "graph.embedFor", { userIds: users.map(u => u.Id) });
				return users.map(user => ({ ...user, ...graph[user.Id] }));
			},

			async updateProfile(this: UsersThis, ctx: Context, id: string, changes: UserChanges) {
				if (changes.DefaultVenueId) await this.checkVenue(ctx, changes.DefaultVenueId);
				const updated = await this.repo.update(id, changes, Date.now());
				if (!updated) throw failures.notFound(`User ${id}`);
				// Names shown on connections, posts and comments, on every node, before the answer.
				await invalidate(ctx, profileCache, [id]);
				return updated;
			},

			/** A user with credentials; UserName and Email are unique (409 naming the field). */
			async createAccount(this: UsersThis, fields: AccountInput) {
				const { UserName, Email, Password, DisplayName, DefaultVenueId } = fields;
				const login = UserName || Email;
				if (!login) throw failures.field("UserName", "NotEmpty", "UserName or Email is required");
				const [first, ...rest] = (DisplayName ?? "").split(/\s+/).filter(Boolean);
				const now = Date.now();
				return this.repo.create({
					Id: fields.Id ?? newGuid(),
					UserName,
					Email,
					DisplayName,
					DefaultVenueId,
					FirstName: fields.FirstName || first,
					LastName: fields.LastName || rest.join(" "),
					PasswordHash: await hashPassword(Password),
					DigestHa1: config.auth.digest ? digestHa1(login, Password) : undefined,
					CreatedTime: now,
					UpdatedTime: now,
				});
			},

			/** 404 unless the venue exists: a DefaultVenueId points at a real venue. */
			async checkVenue(this: UsersThis, ctx: Context, venueId: string) {
				const found = await readCall<unknown[], { ids: string[] }>(ctx, "venues.byIds", { ids: [venueId] });
				if (found.length === 0) throw failures.notFound(`Venue ${venueId}`);
			},

			async signIn(this: UsersThis, ctx: Context<unknown, SessionMeta>, login: string, proves: (account: AccountRow | undefined) => Promise<boolean>) {
				const key = login.toLowerCase();
				const address = ctx.meta.clientIp;
				this.limits.check(key, address);
				const account = await this.repo.account(login);
				if (!(await proves(account)) || !account) {
					this.limits.failed(key, address);
					throw failures.unauthorized("Invalid UserName or Password");
				}
				this.limits.succeeded(key);
				return callerFor(account);
			},
		},
	};
	return schema as unknown as ServiceSchema;
}

/** Who a signed-in user is, as every service sees it. */
function callerFor(user: UserRow): Caller {
	const name = [user.FirstName, user.LastName].filter(Boolean).join(" ");
	return { userId: user.Id, userName: user.UserName ?? user.Email ?? "", displayName: user.DisplayName ?? name, roles: user.Roles };
}
