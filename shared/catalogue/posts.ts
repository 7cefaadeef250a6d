import { operations, route } from "./operation";
import { paging, requiredText, text } from "./fields";
import { w } from "../wire/schema";
import { Activity, Comment, Post, Recipient, Tag } from "../records/posts";

const tagValue = () => w.string().trim().max(100);

export const postsOperations = operations({
	CreatePost: {
		summary: "Post as oneself, optionally private and addressed to users and networks (RecipientIds), with tags",
		action: "posts.create",
		routes: [route("POST /Posts")],
		request: w.object({
			AuthorId: w.guid().required(),
			Content: requiredText(10_000),
			IsPrivate: w.boolean().default(false),
			ContextId: w.guid(),
			AuthorVenueId: w.guid(),
			MessageType: w.number().integer().min(0).max(1000).default(0),
			ExpirationDate: w.timestamp(),
			Url: text(2000).uri({ scheme: ["http", "https"] }),
			ContentKey: text(200),
			ContentParameters: text(4000),
			RecipientIds: w.list(w.guid()).max(500),
			Tags: w.list(tagValue().min(1)).max(50),
		}),
		response: Post,
		access: "user",
		actors: ["AuthorId"],
	},
	FindPost: {
		summary: "Retrieve one post with its recipients, first 100 comments (oldest first), tags and latest 20 activities",
		action: "posts.find",
		routes: [route("GET /Posts/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: Post,
		access: "user",
		reads: true,
		// A public post's answer is kept until the post is written to (its invalidation) or users change (names).
		cacheResponse: { domains: ["users"] },
	},
	UpdatePost: {
		summary:
			"Edit one's post (Content, Url, ContentKey, ContentParameters; an empty Url or key clears it): " +
			"ContentCreatedTime stays, ContentUpdatedTime moves, and an activity says so",
		action: "posts.edit",
		routes: [route("PUT /Posts/:Id")],
		request: w.object({
			Id: w.guid().required(),
			Content: w.string().trim().min(1).max(10_000),
			Url: text(2000).uri({ scheme: ["http", "https"] }),
			ContentKey: text(200),
			ContentParameters: text(4000),
		}),
		response: Post,
		access: "user",
	},
	DeletePost: {
		summary:
			"Delete one's post (or any, as an administrator) with its tags, recipients, comments and activities; " +
			"returns it as it was",
		action: "posts.remove",
		routes: [route("DELETE /Posts/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: Post,
		access: "user",
	},
	CreatePostRecipient: {
		summary: "Address a post to one more user (or network); the author or an admin",
		action: "posts.addRecipient",
		routes: [route("POST /Posts/:PostId/Recipients")],
		request: w.object({
			PostId: w.guid().required(),
			RecipientId: w.guid().required(),
			ParticipantType: w.string().valid("User", "Network").insensitive().default("User"),
		}),
		response: Recipient,
		access: "user",
	},
	CreateNetworkRecipient: {
		summary: "Address a post to a network: its members can then see it; the author or an admin",
		action: "posts.addNetworkRecipient",
		routes: [route("POST /Posts/:PostId/NetworkRecipients")],
		request: w.object({ PostId: w.guid().required(), NetworkId: w.guid().required() }),
		response: Recipient,
		access: "user",
	},
	AllPostRecipients: {
		summary: "The recipients of a post, in the order they were added",
		action: "posts.recipients",
		routes: [route("GET /Posts/:Id/Recipients")],
		request: w.object({ Id: w.guid().required(), ...paging }),
		response: w.array().items(Recipient),
		access: "user",
		reads: true,
	},
	CreateTag: {
		summary: "Tag a post; the author or an admin (a tag the post already has is returned as it is)",
		action: "posts.addTag",
		routes: [route("POST /Posts/:PostId/Tags")],
		request: w.object({
			PostId: w.guid().required(),
			Value: tagValue().required(),
			TagType: w.number().integer().min(0).max(1000).default(0),
		}),
		response: Tag,
		access: "user",
	},
	SearchPostsByTag: {
		summary:
			"Posts visible to the caller having any of the comma-separated TagNames (all posts when none), newest first",
		action: "posts.searchByTag",
		routes: [route("GET /Search/Posts")],
		request: w.object({ TagNames: text(2000), AuthorType: text(50), ContextId: w.guid(), ...paging }),
		response: w.array().items(Post),
		access: "user",
		reads: true,
		// A first page is kept for its reader until a post could join it (services/posts/post-lists.ts), one of its posts
		// changes, or users do (names).
		cacheResponse: { domains: ["users"] },
	},
	UserFeed: {
		summary:
			"One's home timeline: visible posts of oneself, one's connections and subscriptions, one's networks, and those addressed to one; newest first",
		action: "posts.feed",
		routes: [route("GET /Users/:UserId/Feed")],
		request: w.object({ UserId: w.guid().required(), ...paging }),
		response: w.array().items(Post),
		access: "user",
		actors: ["UserId"],
		reads: true,
		// Kept for its reader alone, like a search (the actor check passed for that caller and UserId).
		cacheResponse: { domains: ["users"] },
	},
	UserPosts: {
		summary: "A user's own timeline: the posts they wrote that the caller may see, newest first",
		action: "posts.userPosts",
		routes: [route("GET /Users/:UserId/Posts")],
		request: w.object({ UserId: w.guid().required(), ...paging }),
		response: w.array().items(Post),
		access: "user",
		reads: true,
	},
	CreateComment: {
		summary: "Comment on a post one can see",
		action: "posts.comment",
		routes: [route("POST /Posts/:PostId/Comments"), route("POST /Comments")],
		request: w.object({
			PostId: w.guid().required(),
			AuthorId: w.guid().required(),
			Content: requiredText(10_000),
			CreatedTime: w.timestamp(),
		}),
		response: Comment,
		access: "user",
		actors: ["AuthorId"],
	},
	FindComment: {
		summary: "Retrieve one comment",
		action: "posts.findComment",
		routes: [route("GET /Comments/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: Comment,
		access: "user",
		reads: true,
	},
	UpdateComment: {
		summary: "Edit one's comment (or any, as an administrator)",
		action: "posts.editComment",
		routes: [route("PUT /Comments/:Id")],
		request: w.object({ Id: w.guid().required(), Content: requiredText(10_000) }),
		response: Comment,
		access: "user",
	},
	DeleteComment: {
		summary: "Delete one's comment (or any, as an administrator); returns it as it was",
		action: "posts.removeComment",
		routes: [route("DELETE /Comments/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: Comment,
		access: "user",
	},
	PostComments: {
		summary: "The comments of a post in ascending ContentCreatedTime",
		action: "posts.comments",
		routes: [route("GET /Posts/:PostId/Comments")],
		request: w.object({ PostId: w.guid().required(), ...paging }),
		response: w.array().items(Comment),
		access: "user",
		reads: true,
	},
	PostActivities: {
		summary:
			"The activities of a post in the order they happened (a post record carries only its latest 20); AfterId is an activity's Id",
		action: "posts.activities",
		routes: [route("GET /Posts/:PostId/Activities")],
		request: w.object({ PostId: w.guid().required(), ...paging }),
		response: w.array().items(Activity),
		access: "user",
		reads: true,
	},
});
