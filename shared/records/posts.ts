import { record, w } from "../wire/schema";

/** SPEC.md §2.6: a user or a network a post is addressed to; Id is the recipient's own id. */
export const Recipient = record("Recipient", {
	Id: w.guid(),
	ParticipantType: w.string(),
	DisplayName: w.string(),
	TagLine: w.string(),
	DefaultVenueId: w.guid(),
});

/** SPEC.md §2.7 */
export const Comment = record("Comment", {
	Id: w.guid(),
	PostId: w.guid(),
	ContextId: w.guid(),
	AuthorId: w.guid(),
	AuthorType: w.string(),
	AuthorDisplayName: w.string(),
	AuthorTagline: w.string(),
	AuthorVenueId: w.guid(),
	Content: w.string(),
	CreatedTime: w.timestamp(),
	UpdatedTime: w.timestamp(),
	ContentCreatedTime: w.timestamp(),
});

/** SPEC.md §2.8 */
export const Activity = record("Activity", {
	Id: w.guid(),
	PostId: w.guid(),
	Message: w.string(),
	CreatedTime: w.timestamp(),
});

/** SPEC.md §2.9 */
export const Tag = record("Tag", {
	Id: w.guid(),
	PostId: w.guid(),
	TagType: w.number().integer(),
	Value: w.string(),
	CreatedTime: w.timestamp(),
	UpdatedTime: w.timestamp(),
});

/** SPEC.md §2.10 */
export const PostTag = record("PostTag", {
	Id: w.guid(),
	TagTypeId: w.number().integer(),
	Name: w.string(),
	Description: w.string(),
});

/** SPEC.md §2.5, in its field order. */
export const Post = record("Post", {
	Id: w.guid(),
	IsPrivate: w.boolean(),
	AuthorId: w.guid(),
	AuthorVenueId: w.guid(),
	ContextId: w.guid(),
	ContextOwnerDisplayName: w.string(),
	ContextOwnerTagLine: w.string(),
	ContextOwnerType: w.string(),
	AuthorType: w.string(),
	AuthorDisplayName: w.string(),
	AuthorTagline: w.string(),
	Content: w.string(),
	MessageType: w.number().integer(),
	Recipients: w.list(Recipient),
	Comments: w.list(Comment),
	Activities: w.list(Activity),
	Tags: w.list(Tag),
	ExpirationDate: w.timestamp(),
	CreatedTime: w.timestamp(),
	UpdatedTime: w.timestamp(),
	ContentCreatedTime: w.timestamp(),
	ContentUpdatedTime: w.timestamp(),
	Url: w.string(),
	PostTags: w.list(PostTag),
	ContentKey: w.string(),
	ContentParameters: w.string(),
});

/** What a stream hears of a post deleted (`cmd.PostDeleted`): which one. */
export const DeletedPost = record("DeletedPost", { Id: w.guid() });

/** What a stream hears of a comment deleted (`cmd.CommentDeleted`). */
export const DeletedComment = record("DeletedComment", { Id: w.guid(), PostId: w.guid() });
