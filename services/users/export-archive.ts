import { Context } from "moleculer";
import { readCall } from "../../shared/calls";
import {
	graphOperations,
	Operation,
	postsOperations,
	RequestOf,
	ResponseOf,
	scopeOf,
	systemsOperations,
	usersOperations,
} from "../../shared/catalogue";
import { DataExportArchive } from "../../shared/records/exports";
import { Infer } from "../../shared/wire/typed";
import { writerFor } from "../../shared/wire/write";
import { escapeWireDates } from "../../shared/wire/dates";

/** The archive's sections, in the inner form the operations answer with (timestamps in ms). */
type Archive = Infer<typeof DataExportArchive>;
type SectionName = Exclude<keyof Archive, "ExportedTime">;

/** A sign of life after each page read; it throws when the export is no longer the run's (see exports.service.ts). */
export type Beat = () => Promise<void>;

/** One part of the archive: what it reads, as its owner, through the operations it names (their scopes count). */
interface Section {
	name: SectionName;
	uses: Operation[];
	read(ctx: Context, me: string, beat: Beat): Promise<unknown>;
}

/** The largest page the paged operations give. */
const pageSize = 1000;

/** An operation called as the run's caller: through the operations middleware, with its access rule and checks. */
function call<Op extends Operation>(ctx: Context, op: Op, params: Partial<RequestOf<Op>>): Promise<ResponseOf<Op>> {
	return readCall<ResponseOf<Op>, Partial<RequestOf<Op>>>(ctx, op.action, params);
}

/**
 * Every record of a paged list: pages by Offset until an empty one (not a short one: a list that leaves out what its
 * reader may not see, as UserPictures does, may give a short page before the end).
 */
async function everyPage<T>(read: (page: { Offset: number; Limit: number }) => Promise<T[]>, beat: Beat) {
	const all: T[] = [];
	for (let Offset = 0; ; Offset += pageSize) {
		const page = await read({ Offset, Limit: pageSize });
		await beat();
		if (page.length === 0) return all;
		all.push(...page);
	}
}

const unlessNotFound = (err: unknown): undefined => {
	if ((err as { code?: unknown } | null)?.code !== 404) throw err;
	return undefined;
};

/** The current avatar's record, if there is one (UserAvatar answers its bytes, FindAvatar its record). */
async function avatarOf(ctx: Context, me: string) {
	const current = await call(ctx, systemsOperations.UserAvatar, { UserId: me }).catch(unlessNotFound);
	return current?.Id ? call(ctx, systemsOperations.FindAvatar, { Id: current.Id }) : undefined;
}

/** Everything Plaza holds about a user, section by section, read as that user. */
export const sections: readonly Section[] = [
	{
		name: "Profile",
		uses: [usersOperations.FindUser],
		read: (ctx, me) => call(ctx, usersOperations.FindUser, { Id: me }),
	},
	{
		name: "Connections",
		uses: [graphOperations.UserConnections],
		read: (ctx, me, beat) =>
			everyPage(page => call(ctx, graphOperations.UserConnections, { UserId: me, ...page }), beat),
	},
	{
		name: "Networks",
		uses: [graphOperations.UserNetworks],
		read: (ctx, me, beat) => everyPage(page => call(ctx, graphOperations.UserNetworks, { UserId: me, ...page }), beat),
	},
	{
		name: "Subscriptions",
		uses: [graphOperations.UserSubscriptions],
		read: (ctx, me, beat) =>
			everyPage(page => call(ctx, graphOperations.UserSubscriptions, { UserId: me, ...page }), beat),
	},
	{
		name: "Blocks",
		uses: [graphOperations.UserBlocks],
		read: (ctx, me, beat) => everyPage(page => call(ctx, graphOperations.UserBlocks, { UserId: me, ...page }), beat),
	},
	{
		name: "Mutes",
		uses: [graphOperations.UserMutes],
		read: (ctx, me, beat) => everyPage(page => call(ctx, graphOperations.UserMutes, { UserId: me, ...page }), beat),
	},
	{
		name: "Posts",
		uses: [postsOperations.UserPosts],
		read: (ctx, me, beat) => everyPage(page => call(ctx, postsOperations.UserPosts, { UserId: me, ...page }), beat),
	},
	{
		// No operation lists one's comments: posts.commentsBy, internal, lists the caller's own.
		name: "Comments",
		uses: [postsOperations.PostComments],
		read: (ctx, _me, beat) =>
			everyPage(
				page => readCall<ResponseOf<typeof postsOperations.PostComments>, typeof page>(ctx, "posts.commentsBy", page),
				beat,
			),
	},
	{
		name: "Devices",
		uses: [systemsOperations.UserDevices],
		read: (ctx, me, beat) => everyPage(page => call(ctx, systemsOperations.UserDevices, { UserId: me, ...page }), beat),
	},
	{
		name: "Pictures",
		uses: [systemsOperations.UserPictures],
		read: (ctx, me, beat) =>
			everyPage(page => call(ctx, systemsOperations.UserPictures, { OwnerId: me, ...page }), beat),
	},
	{
		name: "Avatar",
		uses: [systemsOperations.UserAvatar, systemsOperations.FindAvatar],
		read: avatarOf,
	},
];

/** The scopes a credential needs for an export: those of what it reads (a narrower key would read more through it). */
export const archiveScopes: readonly string[] = [...new Set(sections.flatMap(s => s.uses.map(scopeOf)))].sort();

/** The archive as the API writes records: PascalCase fields in the records' order, "\/Date(ms+0000)\/" dates. */
export function archiveText(read: Partial<Record<SectionName, unknown>>, exportedTime: number): string {
	return escapeWireDates(JSON.stringify(writerFor(DataExportArchive)({ ...read, ExportedTime: exportedTime })));
}
