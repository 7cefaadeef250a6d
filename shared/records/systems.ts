import { record, w } from "../wire/schema";

/** PRODUCT.md §4: an outside system whose work items Plaza maps; its Id is an ascending integer. */
export const System = record("System", {
	Id: w.number().integer(),
	Name: w.string(),
	Description: w.string(),
	Url: w.string(),
	CreatedTime: w.timestamp(),
});

/** SPEC.md §2.11 */
export const WorkItem = record("WorkItem", {
	Id: w.guid(),
	ShortDescription: w.string(),
	LongDescription: w.string(),
	ReferenceId: w.string(),
	DefaultVenueId: w.guid(),
});

/** PRODUCT.md §4 */
export const ServiceMap = record("ServiceMap", {
	Id: w.guid(),
	SystemId: w.number().integer(),
	ReferenceId: w.string(),
	WorkItemId: w.guid(),
	CreatedTime: w.timestamp(),
});

/** PRODUCT.md §4 */
export const UserDevice = record("UserDevice", {
	Id: w.guid(),
	UserId: w.guid(),
	DeviceToken: w.string(),
	Platform: w.string(),
	Name: w.string(),
	CreatedTime: w.timestamp(),
});

/** PRODUCT.md §4: an invitation to join, with the venue and network it brings. */
export const UserReservation = record("UserReservation", {
	Id: w.guid(),
	Email: w.string(),
	FirstName: w.string(),
	LastName: w.string(),
	VenueId: w.guid(),
	NetworkId: w.guid(),
	ExpirationDate: w.timestamp(),
	CreatedTime: w.timestamp(),
});

/** PRODUCT.md §4 */
export const Avatar = record("Avatar", {
	Id: w.guid(),
	UserId: w.guid(),
	ContentType: w.string(),
	Size: w.number().integer(),
	Url: w.string(),
	CreatedTime: w.timestamp(),
});

/** PRODUCT.md §4 */
export const Picture = record("Picture", {
	Id: w.guid(),
	OwnerId: w.guid(),
	PostId: w.guid(),
	ContentType: w.string(),
	Size: w.number().integer(),
	Url: w.string(),
	CreatedTime: w.timestamp(),
});

/** The bytes of an avatar or picture: raw on the REST route, base64 in this record elsewhere. */
export const MediaContent = record("MediaContent", {
	Id: w.guid(),
	ContentType: w.string(),
	Size: w.number().integer(),
	ETag: w.string(),
	Data: w.string(),
});
