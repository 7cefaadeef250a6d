import { operations, route } from "./operation";
import { paging, requiredText } from "./fields";
import { w } from "../wire/schema";
import { Venue, VenueMember } from "../records/venues";

export const venuesOperations = operations({
	CreateVenue: {
		summary: "Create a venue; its owner becomes its first member",
		action: "venues.create",
		routes: [route("POST /Venues")],
		request: w.object({ OwnerId: w.guid().required(), Name: requiredText(200) }),
		response: Venue,
		access: "user",
		actors: ["OwnerId"],
	},
	FindVenue: {
		summary: "Retrieve one venue",
		action: "venues.find",
		routes: [route("GET /Venues/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: Venue,
		access: "user",
		reads: true,
	},
	CreateVenueMember: {
		summary: "Add a member to a venue, with an optional role; the venue's owner or an admin",
		action: "venues.addMember",
		routes: [route("POST /Venues/:VenueId/Members")],
		request: w.object({ VenueId: w.guid().required(), UserId: w.guid().required(), RoleId: w.guid() }),
		response: VenueMember,
		access: "user",
	},
	UpdateVenueMember: {
		summary: "Change a venue member's role; the venue's owner or an admin",
		action: "venues.updateMember",
		routes: [route("PUT /Venues/:VenueId/Members/:UserId")],
		request: w.object({ VenueId: w.guid().required(), UserId: w.guid().required(), RoleId: w.guid().allow("") }),
		response: VenueMember,
		access: "user",
	},
	VenueMembers: {
		summary: "The members of a venue, in the order they joined",
		action: "venues.members",
		routes: [route("GET /Venues/:VenueId/Members")],
		request: w.object({ VenueId: w.guid().required(), ...paging }),
		response: w.array().items(VenueMember),
		access: "user",
		reads: true,
	},
	UserVenues: {
		summary: "The venues a user is a member of, in the order joined",
		action: "venues.ofUser",
		routes: [route("GET /Users/:UserId/Venues")],
		request: w.object({ UserId: w.guid().required(), ...paging }),
		response: w.array().items(Venue),
		access: "user",
		reads: true,
	},
});
