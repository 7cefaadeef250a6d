import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, WithRepository } from "../../shared/persistence/repository.mixin";
import { failures } from "../../shared/errors";
import { callerOf, isAdmin } from "../../shared/caller";
import { profilesOf } from "../../shared/profiles";
import { changed } from "../../shared/changes/changes";
import { GraphRepository } from "./graph.repository";
import { GraphContract } from "./graph.contract";
import { graphMongoMigrations, MongoGraphRepository } from "./graph.mongo";
import { NetworkRow } from "./networks.repository";
import { graphMigrations } from "./graph.schema";
import { graphLegacy } from "./graph.legacy";
import { audienceChanged, blockChanged, connected, memberAdded, muteChanged } from "./graph.changes";
import { connectionRecords, memberRecords, networkRecord, restrictionRecords } from "./graph.records";
import { typedService } from "../../shared/implement";
import { graphOperations } from "../../shared/catalogue";

interface GraphMethods {
	network(id: string): Promise<NetworkRow>;
	otherUser(ctx: Context, ownerId: string, userId: string, field: string, toSelf?: string): Promise<void>;
	refuseBlocked(a: string, b: string): Promise<void>;
	undoIfBlocked(ctx: Context, a: string, b: string): Promise<void>;
	endTies(a: string, b: string): Promise<void>;
}

const blockedTie = () =>
	failures.forbidden("One of these users blocks the other: they cannot connect, subscribe or address");

/** How many of each a User record embeds; the finders page through the rest. */
export const embeddedLimit = 100;

type EmbeddedLists = { Connections: unknown[]; Networks: unknown[]; Subscriptions: unknown[] };

const { implement, define } = typedService<GraphMethods, WithRepository<GraphContract>>();

/**
 * The social graph: connections (mutual, stored as one record per side), networks and their
 * members, and subscriptions to users or networks.
 */
export function graphService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "graph",
		mixins: [
			repositoryMixin<GraphContract>(config.store, {
				domain: "graph",
				migrations: graphMigrations,
				create: db => new GraphRepository(db),
				mongo: { migrations: graphMongoMigrations, create: store => new MongoGraphRepository(store) },
				legacy: graphLegacy,
			}),
		],

		actions: {
			...implement(graphOperations.CreateConnection, async function (ctx) {
				const { OwnerId, ConnectToId, IsFavorite } = ctx.params;
				await this.otherUser(ctx, OwnerId, ConnectToId, "ConnectToId", "A user cannot connect to themselves");
				await this.refuseBlocked(OwnerId, ConnectToId);
				const pair = await this.repo.connections.connect(OwnerId, ConnectToId, IsFavorite, Date.now());
				if (!pair) throw failures.alreadyExists("ConnectToId", "These users are connected already");
				await this.undoIfBlocked(ctx, OwnerId, ConnectToId);
				const records = await connectionRecords(ctx, pair);
				await changed(ctx, connected(OwnerId, ConnectToId, records));
				return records;
			}),

			...implement(graphOperations.DeleteConnection, async function (ctx) {
				const removed = await this.repo.connections.disconnect(ctx.params.Id, ctx.params.OwnerId);
				if (!removed) throw failures.notFound(`Connection ${ctx.params.Id}`);
				await changed(
					ctx,
					audienceChanged([removed.OwnerId, removed.UserId], { follows: [removed.OwnerId, removed.UserId] }),
				);
				return (await connectionRecords(ctx, [removed]))[0];
			}),

			...implement(graphOperations.UserConnections, async function (ctx) {
				return connectionRecords(ctx, await this.repo.connections.of(ctx.params.UserId, ctx.params));
			}),

			...implement(graphOperations.CreateNetwork, async function (ctx) {
				const { OwnerId, Name, IsOpen } = ctx.params;
				if (!(await profilesOf(ctx, [OwnerId])).has(OwnerId)) throw failures.notFound(`User ${OwnerId}`);
				const network = await this.repo.networks.create(Name, OwnerId, Date.now(), IsOpen);
				await changed(ctx, audienceChanged([OwnerId], { members: [network.Id] })); // the owner is its first member
				return network;
			}),

			...implement(graphOperations.FindNetwork, async function (ctx) {
				return this.network(ctx.params.Id);
			}),

			...implement(graphOperations.CreateNetworkMember, async function (ctx) {
				const { NetworkId, UserId } = ctx.params;
				const network = await this.network(NetworkId);
				const caller = callerOf(ctx);
				const joinsOpen = network.IsOpen && caller?.userId === UserId;
				if (!isAdmin(caller) && caller?.userId !== network.OwnerId && !joinsOpen) {
					throw failures.forbidden(
						network.IsOpen
							? "Only the network's owner adds others; anyone may add themselves"
							: "The network is closed: only its owner adds members",
					);
				}
				if (!(await profilesOf(ctx, [UserId])).has(UserId)) throw failures.notFound(`User ${UserId}`);
				const member = await this.repo.networks.addMember(NetworkId, UserId, Date.now());
				if (!member) throw failures.alreadyExists("UserId", "The user is a member already");
				const record = (await memberRecords(ctx, [member]))[0];
				await changed(ctx, memberAdded(NetworkId, UserId, record, network.OwnerId));
				return record;
			}),

			...implement(graphOperations.NetworkMembers, async function (ctx) {
				await this.network(ctx.params.NetworkId);
				return memberRecords(ctx, await this.repo.networks.members(ctx.params.NetworkId, ctx.params));
			}),

			...implement(graphOperations.UserNetworks, async function (ctx) {
				return (await this.repo.networks.networksOf(ctx.params.UserId, ctx.params)).map(networkRecord);
			}),

			...implement(graphOperations.CreateSubscription, async function (ctx) {
				const { SubscriberId, SubscribedToId } = ctx.params;
				if (SubscriberId === SubscribedToId)
					throw failures.field("SubscribedToId", "InvalidValue", "A user cannot subscribe to themselves");
				const isNetwork = !!(await this.repo.networks.find(SubscribedToId));
				if (!isNetwork && !(await profilesOf(ctx, [SubscribedToId])).has(SubscribedToId))
					throw failures.notFound(`User or network ${SubscribedToId}`);
				if (!isNetwork) await this.refuseBlocked(SubscriberId, SubscribedToId);
				const subscription = await this.repo.subscriptions.add(ctx.params, Date.now());
				if (!subscription) throw failures.alreadyExists("SubscribedToId", "The subscription exists already");
				if (!isNetwork) await this.undoIfBlocked(ctx, SubscriberId, SubscribedToId);
				await changed(ctx, audienceChanged([SubscriberId], { follows: [SubscribedToId] }));
				return subscription;
			}),

			...implement(graphOperations.DeleteSubscription, async function (ctx) {
				const removed = await this.repo.subscriptions.remove(ctx.params.SubscriberId, ctx.params.SubscribedToId);
				if (!removed) throw failures.notFound("The subscription");
				await changed(ctx, audienceChanged([removed.SubscriberId], { follows: [removed.SubscribedToId] }));
				return removed;
			}),

			...implement(graphOperations.UserSubscriptions, async function (ctx) {
				return this.repo.subscriptions.of(ctx.params.UserId, ctx.params);
			}),

			...implement(graphOperations.CreateBlock, async function (ctx) {
				const { OwnerId, BlockedId } = ctx.params;
				await this.otherUser(ctx, OwnerId, BlockedId, "BlockedId");
				const block = await this.repo.blocks.add(OwnerId, BlockedId, Date.now());
				// Recorded before the ties end: it hides at once, and a retry after a crash ends what was left.
				await this.endTies(OwnerId, BlockedId);
				await changed(ctx, blockChanged(OwnerId, BlockedId));
				return (await restrictionRecords(ctx, [block], "BlockedId"))[0];
			}),

			...implement(graphOperations.DeleteBlock, async function (ctx) {
				const removed = await this.repo.blocks.remove(ctx.params.OwnerId, ctx.params.BlockedId);
				if (!removed) throw failures.notFound("The block");
				await changed(ctx, blockChanged(removed.OwnerId, removed.UserId));
				return (await restrictionRecords(ctx, [removed], "BlockedId"))[0];
			}),

			...implement(graphOperations.UserBlocks, async function (ctx) {
				return restrictionRecords(ctx, await this.repo.blocks.of(ctx.params.UserId, ctx.params), "BlockedId");
			}),

			...implement(graphOperations.CreateMute, async function (ctx) {
				const { OwnerId, MutedId } = ctx.params;
				await this.otherUser(ctx, OwnerId, MutedId, "MutedId");
				const mute = await this.repo.mutes.add(OwnerId, MutedId, Date.now());
				await changed(ctx, muteChanged(OwnerId));
				return (await restrictionRecords(ctx, [mute], "MutedId"))[0];
			}),

			...implement(graphOperations.DeleteMute, async function (ctx) {
				const removed = await this.repo.mutes.remove(ctx.params.OwnerId, ctx.params.MutedId);
				if (!removed) throw failures.notFound("The mute");
				await changed(ctx, muteChanged(removed.OwnerId));
				return (await restrictionRecords(ctx, [removed], "MutedId"))[0];
			}),

			...implement(graphOperations.UserMutes, async function (ctx) {
				return restrictionRecords(ctx, await this.repo.mutes.of(ctx.params.UserId, ctx.params), "MutedId");
			}),

			/**
			 * Internal: the Connections, Networks and Subscriptions a page of User records embeds, the first
			 * `embeddedLimit` of each per user cut in the queries, and names fetched (one call) only for those.
			 */
			embedFor: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userIds: string[] }>) {
					const { connections, networks, subscriptions } = await this.repo.embedFor(ctx.params.userIds, embeddedLimit);
					const named = await connectionRecords(ctx, connections);
					const embedded: Record<string, EmbeddedLists> = {};
					for (const id of ctx.params.userIds) embedded[id] = { Connections: [], Networks: [], Subscriptions: [] };
					named.forEach(c => embedded[String(c.OwnerId)]?.Connections.push(c));
					networks.forEach(n => embedded[n.MemberId]?.Networks.push(networkRecord(n)));
					subscriptions.forEach(s => embedded[s.SubscriberId]?.Subscriptions.push(s));
					return embedded;
				},
			},

			/** Internal: whom and what a user follows, for their feed, and the networks whose private posts they may see. */
			audienceOf: {
				visibility: "public",
				callers: ["posts", "gateway"],
				async handler(ctx: Context<{ userId: string }>) {
					return this.repo.audienceOf(ctx.params.userId);
				},
			},

			/** Internal: who reads what a post's sources post (its fan-out), each source cut at `limit`. */
			readersOf: {
				visibility: "public",
				callers: ["posts"],
				async handler(ctx: Context<{ follows: string[]; members: string[]; limit: number }>) {
					return this.repo.readersOf(ctx.params.follows, ctx.params.members, ctx.params.limit);
				},
			},

			/** Internal: makes a user a member, as an accepted invitation does; already being one is fine. */
			joinNetwork: {
				visibility: "public",
				callers: ["reservations"],
				async handler(ctx: Context<{ networkId: string; userId: string }>) {
					await this.network(ctx.params.networkId);
					const joined = !!(await this.repo.networks.addMember(ctx.params.networkId, ctx.params.userId, Date.now()));
					await changed(ctx, audienceChanged([ctx.params.userId], { members: [ctx.params.networkId] }));
					return joined;
				},
			},

			/** Internal: undoes joinNetwork, when what it was done for failed. */
			leaveNetwork: {
				visibility: "public",
				callers: ["reservations"],
				async handler(ctx: Context<{ networkId: string; userId: string }>) {
					const left = await this.repo.networks.removeMember(ctx.params.networkId, ctx.params.userId);
					await changed(ctx, audienceChanged([ctx.params.userId], { members: [ctx.params.networkId] }));
					return left;
				},
			},

			/**
			 * Internal: removes everything of a user (deleting an account): connections (both sides), subscriptions made and
			 * received, memberships; networks they own stay. Idempotent; the number of records removed.
			 */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					const { userId } = ctx.params;
					const forgotten = await this.repo.forgetUser(userId);
					// Declared even when nothing was left: a first call cut off after its commit may not have declared.
					await changed(
						ctx,
						audienceChanged([...new Set([userId, ...forgotten.connected, ...forgotten.subscribers])], {
							follows: [...new Set([userId, ...forgotten.connected, ...forgotten.subscribedTo])],
							members: forgotten.networks,
						}),
					);
					return forgotten.removed;
				},
			},

			/**
			 * Internal: whether a post's ContextId may be `contextId` for its author: a network they are in, or a user they
			 * are connected to.
			 */
			isContextOf: {
				visibility: "public",
				callers: ["posts"],
				async handler(ctx: Context<{ userId: string; contextId: string }>) {
					return this.repo.isMemberOrConnection(ctx.params.userId, ctx.params.contextId);
				},
			},

			/** Internal: networks by id, as records. */
			networksByIds: {
				visibility: "public",
				callers: ["posts", "reservations"],
				async handler(ctx: Context<{ ids: string[] }>) {
					return (await this.repo.networks.findMany(ctx.params.ids)).map(networkRecord);
				},
			},
		},

		methods: {
			async network(id: string) {
				const network = await this.repo.networks.find(id);
				if (!network) throw failures.notFound(`Network ${id}`);
				return networkRecord(network);
			},

			/** 400 for oneself (`toSelf` says why), 404 for a user who does not exist: whom a tie, block or mute names. */
			async otherUser(ctx: Context, ownerId: string, userId: string, field: string, toSelf?: string) {
				if (ownerId === userId) throw failures.field(field, "InvalidValue", toSelf ?? "A user cannot name themselves");
				const users = await profilesOf(ctx, [ownerId, userId]);
				for (const id of [ownerId, userId]) if (!users.has(id)) throw failures.notFound(`User ${id}`);
			},

			/** 403 when either user blocks the other. */
			async refuseBlocked(a: string, b: string) {
				if (await this.repo.blocks.between(a, b)) throw blockedTie();
			},

			/**
			 * After a tie was made: a block made meanwhile found it not there yet, so it is ended here, as the block would
			 * have, and refused (403).
			 */
			async undoIfBlocked(ctx: Context, a: string, b: string) {
				if (!(await this.repo.blocks.between(a, b))) return;
				await this.endTies(a, b);
				await changed(ctx, blockChanged(a, b));
				throw blockedTie();
			},

			/** Ends what ties two users: their connection (both sides) and their subscriptions to each other. */
			async endTies(a: string, b: string) {
				const side = await this.repo.connections.sideBetween(a, b);
				if (side) await this.repo.connections.disconnect(side.Id, a);
				await this.repo.subscriptions.remove(a, b);
				await this.repo.subscriptions.remove(b, a);
			},
		},
	});
}
