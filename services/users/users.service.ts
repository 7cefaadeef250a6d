import { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { storeMixin, StoreMethods } from "../../shared/persistence/store.mixin";
import { pageOf, toRecord, updateOf } from "../../shared/persistence/documents";
import { Doc, Query } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures } from "../../shared/errors";
import { CallerMeta, callerOf, isAdmin } from "../../shared/caller";

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

type UsersThis = StoreMethods & UsersMethods;

interface UsersMethods {
	userDoc(id: string): Promise<Doc>;
}

/** Users and their profiles (accounts and sessions join them later). */
export function usersService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, UsersMethods, StoreMethods> = {
		name: "users",
		mixins: [
			storeMixin(config.store, "users", [
				{ field: "CreatedTime" },
				// Case-folded keys make "Ann@x.org" and "ann@x.org" the same e-mail address.
				{ field: "EmailKey", unique: true, sparse: true, reportAs: "Email" },
				{ field: "UserNameKey", unique: true, sparse: true, reportAs: "UserName" },
			]),
		],

		actions: {
			async create(this: UsersThis, ctx: Context<ProfileInput>) {
				const { CreatedTime = Date.now(), ...fields } = ctx.params;
				const doc: Doc = { _id: newGuid(), ...withKeys(updateOf(fields).$set), Cloaked: fields.Cloaked ?? false, CreatedTime, UpdatedTime: CreatedTime };
				return toRecord(await this.adapter.insert(doc));
			},

			async find(this: UsersThis, ctx: Context<{ Id: string }>) {
				return toRecord(await this.userDoc(ctx.params.Id));
			},

			async list(this: UsersThis, ctx: Context<{ Offset: number; Limit: number }, CallerMeta>) {
				const docs = await pageOf(this.adapter, visibleTo(ctx), ctx.params);
				return docs.map(toRecord);
			},

			async updateInternal(this: UsersThis, ctx: Context<ProfileInput & { Id: string }>) {
				const { Id, ...fields } = ctx.params;
				const update = updateOf(fields);
				if (update.$unset?.Email) update.$unset.EmailKey = true;
				const updated = await this.adapter.updateById(Id, { ...update, $set: { ...withKeys(update.$set), UpdatedTime: Date.now() } });
				if (!updated) throw failures.notFound(`User ${Id}`);
				return toRecord(updated);
			},
		},

		methods: {
			async userDoc(this: UsersThis, id: string) {
				const doc = await this.adapter.findById(id);
				if (!doc) throw failures.notFound(`User ${id}`);
				return doc;
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
