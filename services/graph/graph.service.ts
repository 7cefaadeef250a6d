import { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { collectionsMixin, CollectionsMethods } from "../../shared/persistence/collections.mixin";
import { insertUnlessExists, linkedInOrder, pageOf, toRecord } from "../../shared/persistence/documents";
import { Doc } from "../../shared/persistence/store";
import { newGuid } from "../../shared/wire/guid";
import { failures, PlazaError } from "../../shared/errors";
import { callerOf, isAdmin } from "../../shared/caller";
import { profilesOf, Profile } from "../../shared/profiles";

type Page = { Offset: number; Limit: number };
type GraphStores = CollectionsMethods<"connections" | "networks" | "members" | "subscriptions">;
type GraphThis = Service & GraphStores & GraphMethods;

interface GraphMethods {
	withNames(ctx: Context, docs: Doc[], userField: string): Promise<Record<string, unknown>[]>;
	networkDoc(id: string): Promise<Doc>;
	repairPair(owner: string, user: string, now: number): Promise<void>;
	memberDoc(networkId: string, userId: string): Doc;
	enroll(member: Doc): Promise<boolean>;
}

/** How many of each a User record embeds; the finders page through the rest. */
export const embeddedLimit = 100;

const pairKey = (owner: string, user: string) => `${owner}:${user}`;

/**
 * The social graph: connections (mutual, stored as one record per side), networks and their
 * members, and subscriptions to users or networks.
 */
export function graphService(config: PlazaConfig): ServiceSchema {
	const schema: ServiceSchema<ServiceSettingSchema, GraphMethods, GraphStores> = {
		name: "graph",
		mixins: [
			collectionsMixin(config.store, {
				// PairKey makes each side unique; Link (on the side created first only) makes the pair unique,
				// so that A→B and B→A requested at once still make one pair.
				connections: [{ field: "OwnerId" }, { field: "PairKey", unique: true, reportAs: "ConnectToId" }, { field: "Link", unique: true, sparse: true, reportAs: "ConnectToId" }],
				networks: [],
				members: [{ field: "NetworkId" }, { field: "UserId" }, { field: "MemberKey", unique: true, reportAs: "UserId" }],
				subscriptions: [{ field: "SubscriberId" }, { field: "SubKey", unique: true, reportAs: "SubscribedToId" }],
			}),
		],

		actions: {
			async connect(this: GraphThis, ctx: Context<{ OwnerId: string; ConnectToId: string; IsFavorite: boolean }>) {
				const { OwnerId, ConnectToId, IsFavorite } = ctx.params;
				if (OwnerId === ConnectToId) throw failures.field("ConnectToId", "InvalidValue", "A user cannot connect to themselves");
				const users = await profilesOf(ctx, [OwnerId, ConnectToId]);
				for (const id of [OwnerId, ConnectToId]) if (!users.has(id)) throw failures.notFound(`User ${id}`);
				const now = Date.now();
				const link = [OwnerId, ConnectToId].sort().join(":");
				const mine: Doc = { _id: newGuid(), OwnerId, UserId: ConnectToId, IsFavorite, CreatedTime: now, PairKey: pairKey(OwnerId, ConnectToId), Link: link };
				const theirs: Doc = { _id: newGuid(), OwnerId: ConnectToId, UserId: OwnerId, IsFavorite: false, CreatedTime: now, PairKey: pairKey(ConnectToId, OwnerId) };
				try {
					await this.stores.connections.insert(mine);
				} catch (err) {
					if ((err as PlazaError).code === 409) {
						await this.repairPair(OwnerId, ConnectToId, now);
						throw failures.alreadyExists("ConnectToId", "These users are connected already");
					}
					throw err;
				}
				await insertUnlessExists(this.stores.connections, theirs);
				return this.withNames(ctx, [mine, theirs], "UserId");
			},

			async disconnect(this: GraphThis, ctx: Context<{ Id: string; OwnerId: string }>) {
				const doc = await this.stores.connections.findById(ctx.params.Id);
				if (!doc || doc.OwnerId !== ctx.params.OwnerId) throw failures.notFound(`Connection ${ctx.params.Id}`);
				const owner = String(doc.OwnerId);
				const user = String(doc.UserId);
				await this.stores.connections.removeMany({ PairKey: { $in: [pairKey(owner, user), pairKey(user, owner)] } });
				return (await this.withNames(ctx, [doc], "UserId"))[0];
			},

			async connectionsOf(this: GraphThis, ctx: Context<{ UserId: string } & Page>) {
				return this.withNames(ctx, await pageOf(this.stores.connections, { OwnerId: ctx.params.UserId }, ctx.params), "UserId");
			},

			async createNetwork(this: GraphThis, ctx: Context<{ OwnerId: string; Name: string }>) {
				const { OwnerId, Name } = ctx.params;
				if (!(await profilesOf(ctx, [OwnerId])).has(OwnerId)) throw failures.notFound(`User ${OwnerId}`);
				const now = Date.now();
				const network: Doc = { _id: newGuid(), Name, OwnerId, NumberOfMembers: 1, CreatedTime: now };
				// The membership first: a crash in between leaves a harmless orphan, never a network whose count lies.
				await this.stores.members.insert({ ...this.memberDoc(network._id, OwnerId), CreatedTime: now });
				return toRecord(await this.stores.networks.insert(network));
			},

			async findNetwork(this: GraphThis, ctx: Context<{ Id: string }>) {
				return toRecord(await this.networkDoc(ctx.params.Id));
			},

			async addMember(this: GraphThis, ctx: Context<{ NetworkId: string; UserId: string }>) {
				const { NetworkId, UserId } = ctx.params;
				const network = await this.networkDoc(NetworkId);
				const caller = callerOf(ctx);
				if (!isAdmin(caller) && caller?.userId !== network.OwnerId && caller?.userId !== UserId) {
					throw failures.forbidden("Only the network's owner adds others; anyone may add themselves");
				}
				if (!(await profilesOf(ctx, [UserId])).has(UserId)) throw failures.notFound(`User ${UserId}`);
				const member = this.memberDoc(NetworkId, UserId);
				if (!(await this.enroll(member))) throw failures.alreadyExists("UserId", "The user is a member already");
				return (await this.withNames(ctx, [member], "UserId"))[0];
			},

			async membersOf(this: GraphThis, ctx: Context<{ NetworkId: string } & Page>) {
				await this.networkDoc(ctx.params.NetworkId);
				return this.withNames(ctx, await pageOf(this.stores.members, { NetworkId: ctx.params.NetworkId }, ctx.params), "UserId");
			},

			async networksOfUser(this: GraphThis, ctx: Context<{ UserId: string } & Page>) {
				const memberships = await pageOf(this.stores.members, { UserId: ctx.params.UserId }, ctx.params);
				return (await linkedInOrder(this.stores.networks, memberships, "NetworkId")).map(toRecord);
			},

			async subscribe(this: GraphThis, ctx: Context<{ SubscriberId: string; SubscribedToId: string; SubscriberToDisplayName?: string; SubscribedToExternalName?: string }>) {
				const { SubscriberId, SubscribedToId } = ctx.params;
				if (SubscriberId === SubscribedToId) throw failures.field("SubscribedToId", "InvalidValue", "A user cannot subscribe to themselves");
				const isNetwork = !!(await this.stores.networks.findById(SubscribedToId));
				if (!isNetwork && !(await profilesOf(ctx, [SubscribedToId])).has(SubscribedToId)) throw failures.notFound(`User or network ${SubscribedToId}`);
				const doc: Doc = { _id: newGuid(), ...ctx.params, CreatedTime: Date.now(), SubKey: `${SubscriberId}:${SubscribedToId}` };
				return toRecord(await this.stores.subscriptions.insert(doc));
			},

			async unsubscribe(this: GraphThis, ctx: Context<{ SubscriberId: string; SubscribedToId: string }>) {
				const doc = await this.stores.subscriptions.findOne({ SubKey: `${ctx.params.SubscriberId}:${ctx.params.SubscribedToId}` });
				if (!doc) throw failures.notFound("The subscription");
				await this.stores.subscriptions.removeById(doc._id);
				return toRecord(doc);
			},

			async subscriptionsOf(this: GraphThis, ctx: Context<{ UserId: string } & Page>) {
				return (await pageOf(this.stores.subscriptions, { SubscriberId: ctx.params.UserId }, ctx.params)).map(toRecord);
			},

			/** Internal: the Connections, Networks and Subscriptions a page of User records embeds, in three queries and one call. */
			embedFor: {
				visibility: "public",
				async handler(this: GraphThis, ctx: Context<{ userIds: string[] }>) {
					const userIds = { $in: ctx.params.userIds };
					const [connections, memberships, subscriptions] = await Promise.all([
						this.stores.connections.find({ query: { OwnerId: userIds }, sort: ["CreatedTime", "_id"] }),
						this.stores.members.find({ query: { UserId: userIds }, sort: ["CreatedTime", "_id"] }),
						this.stores.subscriptions.find({ query: { SubscriberId: userIds }, sort: ["CreatedTime", "_id"] }),
					]);
					const networks = new Map((await this.stores.networks.findByIds([...new Set(memberships.map(m => String(m.NetworkId)))])).map(n => [n._id, toRecord(n)]));
					const named = await this.withNames(ctx, connections, "UserId");
					const embedded: Record<string, { Connections: unknown[]; Networks: unknown[]; Subscriptions: unknown[] }> = {};
					for (const id of ctx.params.userIds) embedded[id] = { Connections: [], Networks: [], Subscriptions: [] };
					const add = (userId: unknown, list: "Connections" | "Networks" | "Subscriptions", item: unknown) => {
						const entry = embedded[String(userId)];
						if (entry && item && entry[list].length < embeddedLimit) entry[list].push(item);
					};
					named.forEach(c => add(c.OwnerId, "Connections", c));
					memberships.forEach(m => add(m.UserId, "Networks", networks.get(String(m.NetworkId))));
					subscriptions.forEach(s => add(s.SubscriberId, "Subscriptions", toRecord(s)));
					return embedded;
				},
			},

			/** Internal: whom and what a user follows, for their feed, and the networks whose private posts they may see. */
			audienceOf: {
				visibility: "public",
				async handler(this: GraphThis, ctx: Context<{ userId: string }>) {
					const { userId } = ctx.params;
					const [connections, memberships, subscriptions] = await Promise.all([
						this.stores.connections.find({ query: { OwnerId: userId } }),
						this.stores.members.find({ query: { UserId: userId } }),
						this.stores.subscriptions.find({ query: { SubscriberId: userId } }),
					]);
					return {
						people: [...connections.map(c => String(c.UserId)), ...subscriptions.map(s => String(s.SubscribedToId))],
						networks: memberships.map(m => String(m.NetworkId)),
					};
				},
			},

			/** Internal: makes a user a member, as an accepted invitation does; already being one is fine. */
			joinNetwork: {
				visibility: "public",
				async handler(this: GraphThis, ctx: Context<{ networkId: string; userId: string }>) {
					await this.networkDoc(ctx.params.networkId);
					return this.enroll(this.memberDoc(ctx.params.networkId, ctx.params.userId));
				},
			},

			/** Internal: undoes joinNetwork, when what it was done for failed. */
			leaveNetwork: {
				visibility: "public",
				async handler(this: GraphThis, ctx: Context<{ networkId: string; userId: string }>) {
					const removed = await this.stores.members.removeMany({ MemberKey: `${ctx.params.networkId}:${ctx.params.userId}` });
					if (removed > 0) await this.stores.networks.updateById(ctx.params.networkId, { $inc: { NumberOfMembers: -removed } });
					return removed > 0;
				},
			},

			/** Internal: networks by id, as records. */
			networksByIds: {
				visibility: "public",
				async handler(this: GraphThis, ctx: Context<{ ids: string[] }>) {
					return (await this.stores.networks.findByIds(ctx.params.ids)).map(toRecord);
				},
			},
		},

		methods: {
			/** Records with the first and last names of the users they point at, from one call to the users service. */
			async withNames(this: GraphThis, ctx: Context, docs: Doc[], userField: string) {
				const users = await profilesOf(ctx, docs.map(d => String(d[userField])));
				return docs.map(doc => {
					const user: Profile | undefined = users.get(String(doc[userField]));
					return { ...toRecord(doc), FirstName: user?.FirstName, LastName: user?.LastName, UserDefaultVenueId: user?.DefaultVenueId };
				});
			},

			async networkDoc(this: GraphThis, id: string) {
				const doc = await this.stores.networks.findById(id);
				if (!doc) throw failures.notFound(`Network ${id}`);
				return doc;
			},

			memberDoc(networkId: string, userId: string): Doc {
				return { _id: newGuid(), NetworkId: networkId, UserId: userId, CreatedTime: Date.now(), MemberKey: `${networkId}:${userId}` };
			},

			/** Adds a membership and counts it ($inc is atomic in every store, so concurrent joins count exactly); false when it existed. */
			async enroll(this: GraphThis, member: Doc) {
				if (!(await insertUnlessExists(this.stores.members, member))) return false;
				await this.stores.networks.updateById(String(member.NetworkId), { $inc: { NumberOfMembers: 1 } });
				return true;
			},

			/** After a duplicate: make sure both sides exist, in case an earlier request stopped half-way. */
			async repairPair(this: GraphThis, owner: string, user: string, now: number) {
				for (const [a, b] of [[owner, user], [user, owner]]) {
					if (await this.stores.connections.findOne({ PairKey: pairKey(a, b) })) continue;
					await insertUnlessExists(this.stores.connections, { _id: newGuid(), OwnerId: a, UserId: b, IsFavorite: false, CreatedTime: now, PairKey: pairKey(a, b) });
				}
			},
		},
	};
	return schema as unknown as ServiceSchema;
}
