import { LegacyDoc, LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { GraphContract } from "./graph.contract";

const optional = (value: unknown) => (typeof value === "string" ? value : undefined);
const time = (doc: LegacyDoc) => Number(doc.CreatedTime) || 0;

/**
 * The former NeDB collections of the graph domain, written through the repository (idempotent).
 * Networks come before members: a network is imported counting no one and each imported member
 * counts itself, so NumberOfMembers ends equal to the member rows (a membership left without its
 * network by the former store is dropped). A connection side brings its mirror if that is missing.
 */
export const graphLegacy: LegacyImport<GraphContract> = {
	connections: (repo, doc) =>
		repo.connections.importSide({
			Id: doc._id,
			OwnerId: String(doc.OwnerId),
			UserId: String(doc.UserId),
			IsFavorite: doc.IsFavorite === true,
			CreatedTime: time(doc),
		}),
	networks: (repo, doc) =>
		repo.networks.importNetwork({
			Id: doc._id,
			Name: legacyText(doc.Name) ?? "",
			OwnerId: String(doc.OwnerId),
			NumberOfMembers: 0,
			IsOpen: doc.IsOpen === true,
			CreatedTime: time(doc),
		}),
	members: (repo, doc) =>
		repo.networks.importMember({
			Id: doc._id,
			NetworkId: String(doc.NetworkId),
			UserId: String(doc.UserId),
			CreatedTime: time(doc),
		}),
	subscriptions: async (repo, doc) =>
		void (await repo.subscriptions.add(
			{
				SubscriberId: String(doc.SubscriberId),
				SubscribedToId: String(doc.SubscribedToId),
				SubscriberToDisplayName: optional(doc.SubscriberToDisplayName),
				SubscribedToExternalName: optional(doc.SubscribedToExternalName),
			},
			time(doc),
			doc._id,
		)),
};
