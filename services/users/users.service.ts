import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { storeMixin, StoreMethods } from "../../shared/persistence/store.mixin";
import { pageOf, toRecord, updateOf } from "../../shared/persistence/documents";
import { Doc, Query } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { Caller, CallerMeta, callerOf, isAdmin, SessionMeta } from "../../shared/caller";
import { hashPassword, verifyPassword, decoyHash } from "../../shared/passwords";
import { DigestAnswer, digestHa1, digestMatches } from "../../shared/digest";
import { SignInLimits } from "./sign-in-limits";
import { Profile } from "../../shared/profiles";
import { readCall } from "../../shared/calls";

/** Profile fields as the catalogue's request schemas deliver them ("" means clear). */
interface ProfileInput {
	FirstName?: string;
	LastName?: string;
	Email?: string;
	UserName?: string;
	Cloaked?: boolean;
	CreatedTime?: number;
	[field: string]: unknown;
}

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

interface UsersMethods {
	userDoc(id: string): Promise<Doc>;
	withGraph(ctx: Context, docs: Doc[]): Promise<Record<string, unknown>[]>;
	updateProfile(ctx: Context, id: string, fields: Record<string, unknown>): Promise<Record<string, unknown>>;
	createAccount(fields: RegistrationInput & { DefaultVenueId?: string }): Promise<Doc>;
	checkVenue(ctx: Context, venueId: string): Promise<void>;
	accountDoc(login: string): Promise<Doc | null>;
	signIn(ctx: Context<unknown, SessionMeta>, login: string, proves: (doc: Doc | null) => Promise<boolean>): Promise<Caller>;
}

interface UsersVars extends StoreMethods {
	limits: SignInLimits;
}

type UsersThis = Service & UsersVars & UsersMethods;

/** Users: their profiles and their accounts (credentials). Sessions live in the sessions service beside it. */
export function usersService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, UsersMethods, UsersVars> = {
		name: "users",
		mixins: [
			storeMixin(config.store, "users", [
				{ field: "CreatedTime" },
				// Case-folded keys make "Ann@x.org" and "ann@x.org" the same e-mail address.
				{ field: "EmailKey", unique: true, sparse: true, reportAs: "Email" },
				{ field: "UserNameKey", unique: true, sparse: true, reportAs: "UserName" },
			]),
		],

		created(this: UsersThis) {
			this.limits = new SignInLimits(config.auth, (message, details) => this.logger.warn(message, details));
		},

		actions: {
			async create(this: UsersThis, ctx: Context<ProfileInput>) {
				const { CreatedTime = Date.now(), ...fields } = ctx.params;
				if (fields.DefaultVenueId) await this.checkVenue(ctx, String(fields.DefaultVenueId));
				const doc: Doc = { _id: newGuid(), ...withKeys(updateOf(fields).$set), Cloaked: fields.Cloaked ?? false, CreatedTime, UpdatedTime: CreatedTime };
				return toRecord(await this.adapter.insert(doc));
			},

			async find(this: UsersThis, ctx: Context<{ Id: string }>) {
				return (await this.withGraph(ctx, [await this.userDoc(ctx.params.Id)]))[0];
			},

			async list(this: UsersThis, ctx: Context<{ Offset: number; Limit: number }, CallerMeta>) {
				return this.withGraph(ctx, await pageOf(this.adapter, visibleTo(ctx), ctx.params));
			},

			/** Internal: what other services show of users next to their records. */
			profiles: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<{ ids: string[] }>): Promise<Profile[]> {
					const docs = await this.adapter.findByIds(ctx.params.ids);
					return docs.map(d => ({ Id: d._id, FirstName: d.FirstName, LastName: d.LastName, JobTitle: d.JobTitle, DefaultVenueId: d.DefaultVenueId }) as Profile);
				},
			},

			async update(this: UsersThis, ctx: Context<ProfileInput & { Id: string }>) {
				const { Id, ...fields } = ctx.params;
				return this.updateProfile(ctx, Id, fields);
			},

			async updateInternal(this: UsersThis, ctx: Context<ProfileInput & { Id: string }>) {
				const { Id, ...fields } = ctx.params;
				return this.updateProfile(ctx, Id, fields);
			},

			async register(this: UsersThis, ctx: Context<RegistrationInput, SessionMeta>) {
				const { AutoLogin, Continue } = ctx.params;
				const doc = await this.createAccount(ctx.params);
				const response: Record<string, unknown> = { UserId: doc._id, UserName: doc.UserName ?? doc.Email, ReferrerUrl: Continue || undefined };
				if (AutoLogin) {
					const session = await ctx.call<{ SessionId: string }, { user: Caller; persistent: boolean }>("sessions.open", { user: callerFor(doc), persistent: false });
					response.SessionId = session.SessionId;
				}
				return response;
			},

			/** Internal: an account made for an accepted invitation (no session: the caller opens one when all is done). */
			createAccount: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<RegistrationInput & { DefaultVenueId?: string }>) {
					const doc = await this.createAccount(ctx.params);
					return { UserId: doc._id, UserName: doc.UserName ?? doc.Email, user: callerFor(doc) };
				},
			},

			/** Internal: takes back an account made moments ago, when what it was made for failed. */
			removeAccount: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<{ id: string }>) {
					await this.adapter.removeById(ctx.params.id);
					return true;
				},
			},

			/** Internal: the account behind a user name (or e-mail) and password, or 401; limited per account and address. */
			verifyCredentials: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<{ UserName: string; Password: string }, SessionMeta>) {
					const { Password } = ctx.params;
					return this.signIn(ctx, ctx.params.UserName, async doc => {
						const matches = await verifyPassword(Password, typeof doc?.PasswordHash === "string" ? doc.PasswordHash : await decoyHash);
						return !!doc && matches;
					});
				},
			},

			/** Internal: the account behind an HTTP Digest answer (when Digest is on), or 401. */
			verifyDigest: {
				visibility: "public",
				async handler(this: UsersThis, ctx: Context<DigestAnswer, SessionMeta>) {
					if (!config.auth.digest) throw failures.unauthorized("Digest authentication is not enabled");
					return this.signIn(ctx, ctx.params.username, async doc => typeof doc?.DigestHa1 === "string" && digestMatches(ctx.params, doc.DigestHa1));
				},
			},
		},

		methods: {
			async userDoc(this: UsersThis, id: string) {
				const doc = await this.adapter.findById(id);
				if (!doc) throw failures.notFound(`User ${id}`);
				return doc;
			},

			/** User records with their Connections, Networks and Subscriptions: one call to the graph for the whole page. */
			async withGraph(this: UsersThis, ctx: Context, docs: Doc[]) {
				if (docs.length === 0) return [];
				const graph = await readCall<Record<string, Record<string, unknown>>, { userIds: string[] }>(ctx, "graph.embedFor", { userIds: docs.map(d => d._id) });
				return docs.map(doc => ({ ...toRecord(doc), ...graph[doc._id] }));
			},

			async updateProfile(this: UsersThis, ctx: Context, id: string, fields: Record<string, unknown>) {
				if (fields.DefaultVenueId) await this.checkVenue(ctx, String(fields.DefaultVenueId));
				const update = updateOf(fields);
				if (update.$unset?.Email) update.$unset.EmailKey = true;
				const updated = await this.adapter.updateById(id, { ...update, $set: { ...withKeys(update.$set), UpdatedTime: Date.now() } });
				if (!updated) throw failures.notFound(`User ${id}`);
				return toRecord(updated);
			},

			/** A user with credentials; UserName and Email are unique (409 naming the field). */
			async createAccount(this: UsersThis, fields: RegistrationInput & { DefaultVenueId?: string }) {
				const { UserName, Email, Password, DisplayName, DefaultVenueId } = fields;
				const login = UserName || Email;
				if (!login) throw failures.field("UserName", "NotEmpty", "UserName or Email is required");
				const [first, ...rest] = (DisplayName ?? "").split(/\s+/).filter(Boolean);
				const now = Date.now();
				const doc: Doc = {
					_id: newGuid(),
					...withKeys(updateOf({ UserName, Email, DisplayName, DefaultVenueId, FirstName: fields.FirstName || first, LastName: fields.LastName || rest.join(" ") }).$set),
					PasswordHash: await hashPassword(Password),
					...(config.auth.digest ? { DigestHa1: digestHa1(login, Password) } : {}),
					Roles: [],
					Cloaked: false,
					CreatedTime: now,
					UpdatedTime: now,
				};
				return this.adapter.insert(doc);
			},

			/** 404 unless the venue exists: a DefaultVenueId points at a real venue. */
			async checkVenue(this: UsersThis, ctx: Context, venueId: string) {
				const found = await readCall<unknown[], { ids: string[] }>(ctx, "venues.byIds", { ids: [venueId] });
				if (found.length === 0) throw failures.notFound(`Venue ${venueId}`);
			},

			/** The account whose user name, or else e-mail address, is `login` (any case). */
			async accountDoc(this: UsersThis, login: string) {
				const key = login.toLowerCase();
				return (await this.adapter.findOne({ UserNameKey: key })) ?? (await this.adapter.findOne({ EmailKey: key }));
			},

			async signIn(this: UsersThis, ctx: Context<unknown, SessionMeta>, login: string, proves: (doc: Doc | null) => Promise<boolean>) {
				const account = login.toLowerCase();
				const address = ctx.meta.clientIp;
				this.limits.check(account, address);
				const doc = await this.accountDoc(login);
				if (!(await proves(doc)) || !doc) {
					this.limits.failed(account, address);
					throw failures.unauthorized("Invalid UserName or Password");
				}
				this.limits.succeeded(account);
				return callerFor(doc);
			},
		},
	};
	return schema as unknown as ServiceSchema;
}

/** Cloaked users are left out for everyone but admins and themselves (PRODUCT.md §3). */
function visibleTo(ctx: Context): Query {
	const caller = callerOf(ctx);
	if (isAdmin(caller)) return {};
	const uncloaked = { Cloaked: { $ne: true } };
	return caller?.userId ? { $or: [uncloaked, { _id: caller.userId }] } : uncloaked;
}

/** The case-folded unique keys that go with Email and UserName. */
function withKeys(fields: Record<string, unknown>): Record<string, unknown> {
	const keyed = { ...fields };
	if (typeof fields.Email === "string") keyed.EmailKey = fields.Email.toLowerCase();
	if (typeof fields.UserName === "string") keyed.UserNameKey = fields.UserName.toLowerCase();
	return keyed;
}

/** Who a signed-in user is, as every service sees it. */
function callerFor(doc: Doc): Caller {
	const name = [doc.FirstName, doc.LastName].filter(Boolean).join(" ");
	return {
		userId: doc._id,
		userName: String(doc.UserName ?? doc.Email ?? ""),
		displayName: String(doc.DisplayName ?? name),
		roles: Array.isArray(doc.Roles) ? (doc.Roles as string[]) : [],
	};
}
