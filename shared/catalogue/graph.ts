import { operations, route } from "./operation";
import { paging, requiredText, text } from "./fields";
import { w } from "../wire/schema";
import { Connection, Network, NetworkMember, Subscription } from "../records/graph";

export const graphOperations = operations({
	CreateConnection: {
		summary: "Connect two users: mutual, so both records are returned (the owner's first)",
		action: "graph.connect",
		routes: [route("POST /Connections")],
		request: w.object({
			OwnerId: w.guid().required(),
			ConnectToId: w.guid().required(),
			IsFavorite: w.boolean().default(false),
			ConnectToType: w.string().valid("User").insensitive().default("User"),
		}),
		response: w.array().items(Connection),
		access: "user",
		actors: ["OwnerId"],
	},
	DeleteConnection: {
		summary: "Delete a connection, both sides; returns the owner's deleted record",
		action: "graph.disconnect",
		routes: [route("DELETE /Connections/:Id")],
		request: w.object({ Id: w.guid().required(), OwnerId: w.guid().required() }),
		response: Connection,
		access: "user",
		actors: ["OwnerId"],
	},
	UserConnections: {
		summary: "A user's connections, oldest first; AfterId is the Id of a Connection",
		action: "graph.connectionsOf",
		routes: [route("GET /Users/:UserId/Connections")],
		request: w.object({ UserId: w.guid().required(), ...paging }),
		response: w.array().items(Connection),
		access: "user",
		reads: true,
	},
	CreateNetwork: {
		summary:
			"Create a network; its owner becomes its first member; closed (the owner adds members) unless IsOpen (anyone may join)",
		action: "graph.createNetwork",
		routes: [route("POST /Networks")],
		request: w.object({ OwnerId: w.guid().required(), Name: requiredText(200), IsOpen: w.boolean().default(false) }),
		response: Network,
		access: "user",
		actors: ["OwnerId"],
	},
	FindNetwork: {
		summary: "Retrieve one network",
		action: "graph.findNetwork",
		routes: [route("GET /Networks/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: Network,
		access: "user",
		reads: true,
	},
	CreateNetworkMember: {
		summary:
			"Add a member to a network: its owner (or an admin) adds anyone; a user may add themselves to an open network only",
		action: "graph.addMember",
		routes: [route("POST /Networks/:NetworkId/Members")],
		request: w.object({ NetworkId: w.guid().required(), UserId: w.guid().required() }),
		response: NetworkMember,
		access: "user",
	},
	NetworkMembers: {
		summary: "The members of a network, in the order they joined; AfterId is a member's UserId",
		action: "graph.membersOf",
		routes: [route("GET /Networks/:NetworkId/Members")],
		request: w.object({ NetworkId: w.guid().required(), ...paging }),
		response: w.array().items(NetworkMember),
		access: "user",
		reads: true,
	},
	UserNetworks: {
		summary: "The networks a user is a member of, in the order joined; AfterId is the Id of a Network",
		action: "graph.networksOfUser",
		routes: [route("GET /Users/:UserId/Networks")],
		request: w.object({ UserId: w.guid().required(), ...paging }),
		response: w.array().items(Network),
		access: "user",
		reads: true,
	},
	CreateSubscription: {
		summary: "Subscribe to a user or a network",
		action: "graph.subscribe",
		routes: [route("POST /Subscriptions")],
		request: w.object({
			SubscriberId: w.guid().required(),
			SubscribedToId: w.guid().required(),
			SubscriberToDisplayName: text(200),
			SubscribedToExternalName: text(200),
		}),
		response: Subscription,
		access: "user",
		actors: ["SubscriberId"],
	},
	DeleteSubscription: {
		summary: "Unsubscribe; returns the deleted subscription",
		action: "graph.unsubscribe",
		routes: [route("DELETE /Subscriptions/:SubscribedToId")],
		request: w.object({ SubscriberId: w.guid().required(), SubscribedToId: w.guid().required() }),
		response: Subscription,
		access: "user",
		actors: ["SubscriberId"],
	},
	UserSubscriptions: {
		summary:
			"What a user subscribes to, oldest first; AfterId is the SubscribedToId of a Subscription (which has no Id)",
		action: "graph.subscriptionsOf",
		routes: [route("GET /Users/:UserId/Subscriptions")],
		request: w.object({ UserId: w.guid().required(), ...paging }),
		response: w.array().items(Subscription),
		access: "user",
		reads: true,
	},
});
