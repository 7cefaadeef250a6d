import { record, w } from "../wire/schema";

/** SPEC.md §2.2 */
export const Connection = record("Connection", {
	Id: w.guid(),
	OwnerId: w.guid(),
	UserId: w.guid(),
	UserDefaultVenueId: w.guid(),
	FirstName: w.string(),
	LastName: w.string(),
	IsFavorite: w.boolean(),
});

/** SPEC.md §2.3 */
export const Network = record("Network", {
	Id: w.guid(),
	Name: w.string(),
	OwnerId: w.guid(),
	NumberOfMembers: w.number().integer(),
	// Closed unless created open (PRODUCT.md §3): who may add themselves.
	IsOpen: w.boolean(),
});

/** SPEC.md §2.4 */
export const Subscription = record("Subscription", {
	SubscriberId: w.guid(),
	SubscribedToId: w.guid(),
	SubscriberToDisplayName: w.string(),
	SubscribedToExternalName: w.string(),
});

/** PRODUCT.md §4: a member of a network. */
export const NetworkMember = record("NetworkMember", {
	Id: w.guid(),
	NetworkId: w.guid(),
	UserId: w.guid(),
	FirstName: w.string(),
	LastName: w.string(),
	CreatedTime: w.timestamp(),
});

/** A user the owner blocks: neither sees the other's posts and comments, nor may connect, subscribe or address. */
export const Block = record("Block", {
	OwnerId: w.guid(),
	BlockedId: w.guid(),
	FirstName: w.string(),
	LastName: w.string(),
	CreatedTime: w.timestamp(),
});

/** A user the owner mutes: their posts stay out of the owner's home timeline and stream. */
export const Mute = record("Mute", {
	OwnerId: w.guid(),
	MutedId: w.guid(),
	FirstName: w.string(),
	LastName: w.string(),
	CreatedTime: w.timestamp(),
});
