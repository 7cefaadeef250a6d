import { Session, TestPlaza, WireRecord } from "./plaza";
import { createUser } from "./users";

/** The records the matrix's requests name: the owner's, made once before the cells run. */
export interface World {
	plaza: TestPlaza;
	owner: Session;
	/** A third user, to connect to, address, add as a member. */
	other: WireRecord;
	/** The owner's public post (what its author alone may add to) and private post (what nobody else may see). */
	publicPost: WireRecord;
	privatePost: WireRecord;
	/** The owner's comment on the private post, and a picture attached to it. */
	privateComment: WireRecord;
	privatePicture: WireRecord;
	/** The owner's closed network, venue (`other` is a member), reservation and avatar. */
	network: WireRecord;
	venue: WireRecord;
	reservation: WireRecord;
	avatar: WireRecord;
	/** A system (made by the admin) and a work item. */
	systemId: number;
	workItem: WireRecord;
}

/**
 * An operation's row: the request its owner would send (made afresh for each cell, so that every
 * cell of a write can succeed), and, where it acts on a record someone owns, what a stranger is
 * answered: 403 when the record is visible to them but not theirs, 404 when to them it does not exist.
 */
export interface Row {
	params(world: World): Promise<Record<string, unknown>>;
	ownedBy?: { record: string; stranger: 403 | 404 };
	/** The REST route the cell uses, when not the first. */
	routeIndex?: number;
	/** What the administrator's key is answered where the operation needs a user behind the caller (one's API keys). */
	adminKey?: 403;
	/** Refused to the owner's API key: what only a person (session, password, token) may do. */
	keyRefused?: true;
	/** The owner's credentials refused too: the request names another user (one the owner cannot delete). */
	othersRecord?: true;
}

/** The smallest GIF the media service takes (it checks the signature): a picture without a decoder's cost. */
export const gifData = "R0lGODlhAQABAAAAACwAAAAAAQABAAACAkQBADs=";

let serial = 0;
/** A name no other cell uses. */
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(serial += 1)}`;

const password = "correct horse battery";

async function ok(reply: Promise<{ status: number; text: string; body: WireRecord }>): Promise<WireRecord> {
	const done = await reply;
	if (done.status !== 200) throw new Error(`A fixture failed: ${done.status} ${done.text}`);
	return done.body;
}

const freshUser = async (w: World) => (await createUser(w.plaza)).Id;

/** Makes the matrix's world: every record the rows name, owned by `owner`. */
export async function makeWorld(plaza: TestPlaza, owner: Session): Promise<World> {
	const other = await createUser(plaza);
	const publicPost = await ok(owner.http("POST", "/Posts", { AuthorId: owner.userId, Content: "a public post" }));
	const privatePost = await ok(
		owner.http("POST", "/Posts", {
			AuthorId: owner.userId,
			Content: "a private post",
			IsPrivate: true,
			Tags: ["matrix"],
		}),
	);
	const privateComment = await ok(
		owner.http("POST", `/Posts/${privatePost.Id}/Comments`, { AuthorId: owner.userId, Content: "a private comment" }),
	);
	const privatePicture = await ok(
		owner.http("POST", "/Pictures", {
			OwnerId: owner.userId,
			PostId: privatePost.Id,
			ContentType: "image/gif",
			Data: gifData,
		}),
	);
	const network = await ok(
		owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "The owner's closed network" }),
	);
	const venue = await ok(owner.http("POST", "/Venues", { OwnerId: owner.userId, Name: "The owner's venue" }));
	await ok(owner.http("POST", `/Venues/${venue.Id}/Members`, { UserId: other.Id }));
	const reservation = await ok(owner.http("POST", "/Reservations", { Email: `${unique("invitee")}@example.org` }));
	const avatar = await ok(
		owner.http("POST", `/Users/${owner.userId}/Avatars`, { ContentType: "image/gif", Data: gifData }),
	);
	const system = await ok(plaza.admin("POST", "/Systems", { Name: "Matrix system" }));
	const workItem = await ok(owner.http("POST", "/WorkItems", { ShortDescription: "a work item" }));
	return {
		plaza,
		owner,
		other,
		publicPost,
		privatePost,
		privateComment,
		privatePicture,
		network,
		venue,
		reservation,
		avatar,
		systemId: Number(system.Id),
		workItem,
	};
}

/**
 * Every operation of the catalogue, by name. Who may call it comes from the catalogue (access, actors);
 * this table adds only what the catalogue cannot say: a valid request, and whose record it acts on.
 */
export const rows: Record<string, Row> = {
	Registration: { params: async () => ({ UserName: unique("matrix"), Password: password }) },
	Auth: {
		params: async w => ({ provider: "credentials", UserName: w.owner.userName, Password: w.owner.password }),
		routeIndex: 3,
	},
	CreateUser: { params: async () => ({ FirstName: "Created", LastName: "ByMatrix" }) },
	FindUser: { params: async w => ({ Id: w.owner.userId }) },
	AllUsers: { params: async () => ({ Limit: 5 }) },
	UpdateUser: { params: async w => ({ Id: w.owner.userId, FirstName: "Owner", LastName: "Renamed" }) },
	UpdateUserInternal: { params: async w => ({ Id: w.owner.userId, FirstName: "Owner", LastName: "Internal" }) },

	CreateConnection: { params: async w => ({ OwnerId: w.owner.userId, ConnectToId: await freshUser(w) }) },
	DeleteConnection: {
		params: async w => {
			const [mine] = (
				await w.owner.http<WireRecord[]>("POST", "/Connections", {
					OwnerId: w.owner.userId,
					ConnectToId: await freshUser(w),
				})
			).body;
			return { Id: mine.Id, OwnerId: w.owner.userId };
		},
	},
	UserConnections: { params: async w => ({ UserId: w.owner.userId }) },
	CreateNetwork: { params: async w => ({ OwnerId: w.owner.userId, Name: unique("network") }) },
	FindNetwork: { params: async w => ({ Id: w.network.Id }) },
	CreateNetworkMember: {
		params: async w => ({ NetworkId: w.network.Id, UserId: await freshUser(w) }),
		ownedBy: { record: "a closed network", stranger: 403 },
	},
	NetworkMembers: { params: async w => ({ NetworkId: w.network.Id }) },
	UserNetworks: { params: async w => ({ UserId: w.owner.userId }) },
	CreateSubscription: { params: async w => ({ SubscriberId: w.owner.userId, SubscribedToId: await freshUser(w) }) },
	DeleteSubscription: {
		params: async w => {
			const to = await freshUser(w);
			await ok(w.owner.http("POST", "/Subscriptions", { SubscriberId: w.owner.userId, SubscribedToId: to }));
			return { SubscriberId: w.owner.userId, SubscribedToId: to };
		},
	},
	UserSubscriptions: { params: async w => ({ UserId: w.owner.userId }) },
	CreateBlock: { params: async w => ({ OwnerId: w.owner.userId, BlockedId: await freshUser(w) }) },
	DeleteBlock: {
		params: async w => {
			const blocked = await freshUser(w);
			await ok(w.owner.http("POST", "/Blocks", { OwnerId: w.owner.userId, BlockedId: blocked }));
			return { OwnerId: w.owner.userId, BlockedId: blocked };
		},
	},
	UserBlocks: { params: async w => ({ UserId: w.owner.userId }) },
	CreateMute: { params: async w => ({ OwnerId: w.owner.userId, MutedId: await freshUser(w) }) },
	DeleteMute: {
		params: async w => {
			const muted = await freshUser(w);
			await ok(w.owner.http("POST", "/Mutes", { OwnerId: w.owner.userId, MutedId: muted }));
			return { OwnerId: w.owner.userId, MutedId: muted };
		},
	},
	UserMutes: { params: async w => ({ UserId: w.owner.userId }) },

	CreatePost: { params: async w => ({ AuthorId: w.owner.userId, Content: "posted by the matrix" }) },
	FindPost: { params: async w => ({ Id: w.privatePost.Id }), ownedBy: { record: "a private post", stranger: 404 } },
	CreatePostRecipient: {
		params: async w => ({ PostId: w.publicPost.Id, RecipientId: w.other.Id }),
		ownedBy: { record: "a post", stranger: 403 },
	},
	CreateNetworkRecipient: {
		params: async w => ({ PostId: w.publicPost.Id, NetworkId: w.network.Id }),
		ownedBy: { record: "a post", stranger: 403 },
	},
	AllPostRecipients: {
		params: async w => ({ Id: w.privatePost.Id }),
		ownedBy: { record: "a private post", stranger: 404 },
	},
	CreateTag: {
		params: async w => ({ PostId: w.publicPost.Id, Value: "tagged" }),
		ownedBy: { record: "a post", stranger: 403 },
	},
	SearchPostsByTag: { params: async () => ({ TagNames: "matrix" }) },
	UserFeed: { params: async w => ({ UserId: w.owner.userId }) },
	UserPosts: { params: async w => ({ UserId: w.owner.userId }) },
	CreateComment: { params: async w => ({ PostId: w.publicPost.Id, AuthorId: w.owner.userId, Content: "a comment" }) },
	UpdatePost: {
		params: async w => ({ Id: (await ownersPost(w)).Id, Content: "edited" }),
		ownedBy: { record: "a public post", stranger: 403 },
	},
	DeletePost: {
		params: async w => ({ Id: (await ownersPost(w)).Id }),
		ownedBy: { record: "a public post", stranger: 403 },
	},
	UpdateComment: {
		params: async w => ({ Id: (await ownersComment(w)).Id, Content: "edited" }),
		ownedBy: { record: "a comment on a public post", stranger: 403 },
	},
	DeleteComment: {
		params: async w => ({ Id: (await ownersComment(w)).Id }),
		ownedBy: { record: "a comment on a public post", stranger: 403 },
	},
	FindComment: {
		params: async w => ({ Id: w.privateComment.Id }),
		ownedBy: { record: "a private post's comment", stranger: 404 },
	},
	PostComments: {
		params: async w => ({ PostId: w.privatePost.Id }),
		ownedBy: { record: "a private post", stranger: 404 },
	},
	PostActivities: {
		params: async w => ({ PostId: w.privatePost.Id }),
		ownedBy: { record: "a private post", stranger: 404 },
	},

	CreateVenue: { params: async w => ({ OwnerId: w.owner.userId, Name: unique("venue") }) },
	FindVenue: { params: async w => ({ Id: w.venue.Id }) },
	CreateVenueMember: {
		params: async w => ({ VenueId: w.venue.Id, UserId: await freshUser(w) }),
		ownedBy: { record: "a venue", stranger: 403 },
	},
	UpdateVenueMember: {
		params: async w => ({ VenueId: w.venue.Id, UserId: w.other.Id, RoleId: w.workItem.Id }),
		ownedBy: { record: "a venue", stranger: 403 },
	},
	VenueMembers: { params: async w => ({ VenueId: w.venue.Id }) },
	UserVenues: { params: async w => ({ UserId: w.owner.userId }) },

	CreateSystem: { params: async () => ({ Name: unique("system") }) },
	FindSystem: { params: async w => ({ Id: w.systemId }) },
	AllSystems: { params: async () => ({}) },
	CreateWorkItem: { params: async () => ({ ShortDescription: "made by the matrix" }) },
	FindWorkItem: { params: async w => ({ Id: w.workItem.Id }) },
	CreateServiceMap: {
		params: async w => ({ SystemId: w.systemId, ReferenceId: unique("ref"), WorkItemId: w.workItem.Id }),
	},
	ServiceMapsDto: { params: async w => ({ SystemId: w.systemId }) },
	CreateUserDevice: { params: async w => ({ UserId: w.owner.userId, DeviceToken: unique("device") }) },
	UserDevices: { params: async w => ({ UserId: w.owner.userId }) },
	DeleteUserDevice: {
		params: async w => {
			const device = await ok(
				w.owner.http("POST", `/Users/${w.owner.userId}/Devices`, { DeviceToken: unique("device") }),
			);
			return { UserId: w.owner.userId, Id: device.Id };
		},
	},
	CreateUserReservation: {
		params: async w => ({ Email: `${unique("invitee")}@example.org`, NetworkId: w.network.Id }),
		ownedBy: { record: "a network invited into", stranger: 403 },
	},
	FindUserReservation: {
		params: async w => ({ Id: w.reservation.Id }),
		ownedBy: { record: "a reservation", stranger: 404 },
	},
	ConvertFromReservation: {
		params: async w => {
			const reservation = await ok(w.owner.http("POST", "/Reservations", { Email: `${unique("guest")}@example.org` }));
			return { ReservationId: reservation.Id, UserName: unique("guest"), Password: password };
		},
	},
	CreateAvatar: { params: async w => ({ UserId: w.owner.userId, ContentType: "image/gif", Data: gifData }) },
	FindAvatar: { params: async w => ({ Id: w.avatar.Id }) },
	UserAvatar: { params: async w => ({ UserId: w.owner.userId }) },
	CreatePicture: { params: async w => ({ OwnerId: w.owner.userId, ContentType: "image/gif", Data: gifData }) },
	FindPicture: {
		params: async w => ({ Id: w.privatePicture.Id }),
		ownedBy: { record: "a private post's picture", stranger: 404 },
	},
	UserPictures: { params: async w => ({ OwnerId: w.owner.userId }) },
	MediaFile: {
		params: async w => ({ Id: w.privatePicture.Id }),
		ownedBy: { record: "a private post's picture", stranger: 404 },
	},

	CreateReport: {
		params: async w => ({ SubjectType: "Post", SubjectId: w.publicPost.Id, Reason: unique("spam") }),
		adminKey: 403,
	},
	AllReports: { params: async () => ({ Status: "Open" }) },
	ResolveReport: {
		params: async w => {
			const subject = { SubjectType: "User", SubjectId: w.other.Id, Reason: unique("abuse") };
			return { Id: (await ok(w.owner.http("POST", "/Reports", subject))).Id, Action: "Dismiss" };
		},
	},
	AuditLog: { params: async () => ({}) },
	DeleteAccount: {
		// A fresh user each cell (a deletion is for good); only an admin may delete another's account.
		params: async w => ({ Id: await freshUser(w) }),
		othersRecord: true,
	},
	GetAccessToken: {
		params: async w => {
			const signIn = { UserName: w.owner.userName, Password: w.owner.password };
			return { RefreshToken: (await ok(w.plaza.http("POST", "/auth/credentials", signIn))).RefreshToken };
		},
	},
	GetJsonWebKeySet: { params: async () => ({}) },
	Resources: { params: async () => ({}) },
	ResourceRequest: { params: async () => ({ name: "Posts" }) },

	QueryUserApiKeys: { params: async () => ({}), adminKey: 403, keyRefused: true },
	CreateUserApiKey: { params: async () => ({ Name: unique("key") }), adminKey: 403, keyRefused: true },
	UpdateUserApiKey: {
		params: async w => ({ Id: await ownersKey(w), Name: unique("renamed") }),
		ownedBy: { record: "an API key", stranger: 404 },
		adminKey: 403,
		keyRefused: true,
	},
	DeleteUserApiKey: {
		params: async w => ({ Id: await ownersKey(w) }),
		ownedBy: { record: "an API key", stranger: 404 },
		adminKey: 403,
		keyRefused: true,
	},
	AdminQueryApiKeys: { params: async w => ({ UserId: w.owner.userId }) },
	AdminCreateApiKey: { params: async w => ({ UserId: w.owner.userId, Scopes: ["posts:read"] }) },
	AdminUpdateApiKey: { params: async w => ({ Id: await ownersKey(w), Reset: ["Notes"] }) },
	AdminDeleteApiKey: { params: async w => ({ Id: await ownersKey(w) }) },

	// Exports are their owner's alone: the admin's key has no user to export, nor may it read a user's archive.
	CreateDataExport: { params: async () => ({}), adminKey: 403 },
	FindDataExport: {
		params: async w => ({ Id: (await ok(w.owner.http("POST", "/exports", {}))).Id }),
		ownedBy: { record: "a data export", stranger: 404 },
		adminKey: 403,
	},
	DataExportFile: {
		// The owner's export once Ready: until then its file is 404 to the owner too.
		params: async w => {
			const { Id } = await ok(w.owner.http("POST", "/exports", {}));
			for (let wait = 0; wait < 500 && (await ok(w.owner.http("GET", `/exports/${Id}`))).Status !== "Ready"; wait++)
				await new Promise(resolve => setTimeout(resolve, 20));
			return { Id };
		},
		ownedBy: { record: "a data export", stranger: 404 },
		adminKey: 403,
	},
};

/** A new public post of the owner's. */
const ownersPost = (w: World) =>
	ok(w.owner.http("POST", "/Posts", { AuthorId: w.owner.userId, Content: unique("post") }));

/** A new comment of the owner's on their public post. */
const ownersComment = (w: World) =>
	ok(w.owner.http("POST", "/Comments", { PostId: w.publicPost.Id, AuthorId: w.owner.userId, Content: unique("c") }));

/** A new API key of the owner's, by its Id (its list's newest). */
async function ownersKey(w: World): Promise<number> {
	await ok(w.owner.http("POST", "/apikeys", { Name: unique("key") }));
	const keys = await ok(w.owner.http("GET", "/apikeys"));
	return Number((keys.Results as WireRecord[])[0].Id);
}
