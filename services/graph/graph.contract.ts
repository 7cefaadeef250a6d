import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { ConnectionsRepository } from "./connections.repository";
import { GraphRepository } from "./graph.repository";
import { NetworksRepository } from "./networks.repository";
import { SubscriptionsRepository } from "./subscriptions.repository";

/**
 * What the graph's repository offers on every engine: GraphRepository's public members, and its
 * three parts by their public members too (a class with private fields matches only itself).
 */
export type GraphContract = Omit<RepositoryContract<GraphRepository>, "connections" | "networks" | "subscriptions"> & {
	readonly connections: RepositoryContract<ConnectionsRepository>;
	readonly networks: RepositoryContract<NetworksRepository>;
	readonly subscriptions: RepositoryContract<SubscriptionsRepository>;
};
