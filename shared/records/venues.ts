import { record, w } from "../wire/schema";

/** PRODUCT.md §4 */
export const Venue = record("Venue", {
	Id: w.guid(),
	Name: w.string(),
	OwnerId: w.guid(),
	CreatedTime: w.timestamp(),
});

/** SPEC.md §2.12 */
export const VenueMember = record("VenueMember", {
	VenueId: w.guid(),
	OwnerId: w.guid(),
	UserId: w.guid(),
	VenueName: w.string(),
	MemberFirstName: w.string(),
	MemberLastName: w.string(),
	RoleId: w.guid(),
});
