import { Context } from "moleculer";
import { Doc } from "../../shared/persistence/store";
import { toRecord } from "../../shared/persistence/documents";
import { displayName, Profile, profilesOf } from "../../shared/profiles";
import { readCall } from "../../shared/calls";

/** How many comments a post embeds when it comes in a list; PostComments pages through all. */
export const embeddedComments = 100;

interface NetworkRecord {
	Id: string;
	Name?: string;
}

/** A recipient as stored on its post: "User:<id>" or "Network:<id>". */
export const recipientKey = (type: string, id: string) => `${type}:${id}`;

export function parseRecipientKey(key: string): { type: string; id: string } {
	const [type, id] = key.split(":");
	return { type, id };
}

/**
 * Everything the records of posts and comments show of users and networks, fetched for a whole page
 * at once: one call to the users service and one to the graph, whatever the page's size.
 */
export class Names {
	private constructor(
		private readonly users: Map<string, Profile>,
		private readonly networks: Map<string, NetworkRecord>,
	) {}

	static async of(ctx: Context, userIds: string[], networkIds: string[]): Promise<Names> {
		const unique = [...new Set(networkIds.filter(Boolean))];
		const [users, networks] = await Promise.all([
			profilesOf(ctx, userIds),
			unique.length ? readCall<NetworkRecord[], { ids: string[] }>(ctx, "graph.networksByIds", { ids: unique }) : Promise.resolve([]),
		]);
		return new Names(users, new Map(networks.map(n => [n.Id, n])));
	}

	/** The names a page of posts (and their comments) needs. */
	static forPosts(ctx: Context, posts: Doc[], comments: Doc[]): Promise<Names> {
		const recipients = posts.flatMap(p => ((p.Recipients as string[]) ?? []).map(parseRecipientKey));
		const contexts = posts.map(p => String(p.ContextId ?? ""));
		return Names.of(
			ctx,
			[...posts.map(p => String(p.AuthorId)), ...comments.map(c => String(c.AuthorId)), ...recipients.filter(r => r.type === "User").map(r => r.id), ...contexts],
			[...recipients.filter(r => r.type === "Network").map(r => r.id), ...contexts],
		);
	}

	user(id: unknown): Profile | undefined {
		return this.users.get(String(id));
	}

	network(id: unknown): NetworkRecord | undefined {
		return this.networks.get(String(id));
	}

	/** "User:<id>" or "Network:<id>", whichever the id is, or undefined when it is neither. */
	recipientKey(id: string): string | undefined {
		if (this.users.has(id)) return recipientKey("User", id);
		if (this.networks.has(id)) return recipientKey("Network", id);
		return undefined;
	}

	recipient(key: string): Record<string, unknown> {
		const { type, id } = parseRecipientKey(key);
		if (type === "Network") return { Id: id, ParticipantType: type, DisplayName: this.network(id)?.Name };
		const user = this.user(id);
		return { Id: id, ParticipantType: type, DisplayName: displayName(user), TagLine: user?.JobTitle, DefaultVenueId: user?.DefaultVenueId };
	}

	comment(doc: Doc): Record<string, unknown> {
		const author = this.user(doc.AuthorId);
		return { ...toRecord(doc), AuthorType: "User", AuthorDisplayName: displayName(author), AuthorTagline: author?.JobTitle };
	}

	post(doc: Doc, comments: Doc[]): Record<string, unknown> {
		const author = this.user(doc.AuthorId);
		const contextUser = this.user(doc.ContextId);
		const contextNetwork = this.network(doc.ContextId);
		const tags = (doc.Tags as Array<Record<string, unknown>>) ?? [];
		return {
			...toRecord(doc),
			AuthorType: "User",
			AuthorDisplayName: displayName(author),
			AuthorTagline: author?.JobTitle,
			ContextOwnerType: contextUser ? "User" : contextNetwork ? "Network" : undefined,
			ContextOwnerDisplayName: contextUser ? displayName(contextUser) : contextNetwork?.Name,
			ContextOwnerTagLine: contextUser?.JobTitle,
			Recipients: ((doc.Recipients as string[]) ?? []).map(key => this.recipient(key)),
			Comments: comments.map(c => this.comment(c)),
			Tags: tags.map(t => ({ ...t, PostId: doc._id })),
			PostTags: tags.map(t => ({ Id: t.Id, TagTypeId: t.TagType, Name: t.Value })),
			Activities: ((doc.Activities as Array<Record<string, unknown>>) ?? []).map(a => ({ ...a, PostId: doc._id })),
		};
	}
}
