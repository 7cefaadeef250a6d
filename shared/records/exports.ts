import { record, w } from "../wire/schema";
import { User } from "./users";
import { Block, Connection, Mute, Network, Subscription } from "./graph";
import { Comment, Post } from "./posts";
import { Avatar, Picture, UserDevice } from "./systems";

/** An export of one's data: where it stands, and once Ready, where its archive is. */
export const DataExport = record("DataExport", {
	Id: w.guid(),
	UserId: w.guid(),
	/** Pending, Running, Ready or Failed. */
	Status: w.string(),
	/** 0 to 100. */
	Progress: w.number().integer(),
	/** The archive's path (DataExportFile), once Ready. */
	DownloadUrl: w.string(),
	CreatedTime: w.timestamp(),
	UpdatedTime: w.timestamp(),
	CompletedTime: w.timestamp(),
});

/** The archive of an export: raw on the REST route, base64 in this record elsewhere. */
export const DataExportContent = record("DataExportContent", {
	Id: w.guid(),
	ContentType: w.string(),
	Size: w.number().integer(),
	ETag: w.string(),
	Data: w.string(),
});

/** What the archive holds: everything Plaza keeps about its owner, in the records the API answers with. */
export const DataExportArchive = record("DataExportArchive", {
	Profile: User,
	Connections: w.list(Connection),
	Networks: w.list(Network),
	Subscriptions: w.list(Subscription),
	Blocks: w.list(Block),
	Mutes: w.list(Mute),
	Posts: w.list(Post),
	Comments: w.list(Comment),
	Devices: w.list(UserDevice),
	Pictures: w.list(Picture),
	Avatar: Avatar,
	ExportedTime: w.timestamp(),
});
