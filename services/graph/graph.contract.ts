import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { ConnectionsRepository } from "./connections.repository";
import { GraphRepository } from "./graph.repository";
import { NetworksRepository } from "./networks.repository";
import { SubscriptionsRepository } from "./subscriptions.repository";
import { RestrictionsRepository } from "./restrictions.repository";

/**
 * What the graph's repository offers on every engine: GraphRepository's public members, and its
 * parts by their public members too (a class with private fields matches only itself).
 */
export type GraphContract = Omit<
	RepositoryContract<GraphRepository>,
	"connections" | "networks" | "subscriptions" | "blocks" | "mutes"
> & {
	readonly connections: RepositoryContract<ConnectionsRepository>;
	readonly networks: RepositoryContract<NetworksRepository>;
	readonly subscriptions: RepositoryContract<SubscriptionsRepository>;
	readonly blocks: RepositoryContract<RestrictionsRepository>;
	readonly mutes: RepositoryContract<RestrictionsRepository>;
};
