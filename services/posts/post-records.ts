import { Context } from "moleculer";
import { displayName, Profile, profilesOf } from "../../shared/profiles";
import { readCall } from "../../shared/calls";
import { ActivityRow, CommentRow, NewRecipient, PostEmbeds, PostRow, RecipientRow, TagRow } from "./posts.rows";

interface NetworkRecord {
	Id: string;
	Name?: string;
}

/**
 * Everything the records of posts and comments show of users and networks, fetched for a whole page
 * at once: one call to the users service and one to the graph, whatever the page's size.
 */
export class RecordNames {
	private constructor(
		private readonly users: Map<string, Profile>,
		private readonly networks: Map<string, NetworkRecord>,
	) {}

	static async of(ctx: Context, userIds: string[], networkIds: string[]): Promise<RecordNames> {
		const unique = [...new Set(networkIds.filter(Boolean))];
		const [users, networks] = await Promise.all([
			profilesOf(ctx, userIds),
			unique.length
				? readCall<NetworkRecord[], { ids: string[] }>(ctx, "graph.networksByIds", { ids: unique })
				: Promise.resolve([]),
		]);
		return new RecordNames(users, new Map(networks.map(n => [n.Id, n])));
	}

	/** The names a page of posts (and what they embed) needs. */
	static forPosts(ctx: Context, posts: PostRow[], embeds: Map<string, PostEmbeds>): Promise<RecordNames> {
		const recipients = [...embeds.values()].flatMap(e => e.recipients);
		const comments = [...embeds.values()].flatMap(e => e.comments);
		const contexts = posts.map(p => p.ContextId ?? "");
		return RecordNames.of(
			ctx,
			[
				...posts.map(p => p.AuthorId),
				...comments.map(c => c.AuthorId),
				...recipients.filter(r => r.ParticipantType === "User").map(r => r.RecipientId),
				...contexts,
			],
			[...recipients.filter(r => r.ParticipantType === "Network").map(r => r.RecipientId), ...contexts],
		);
	}

	user(id: string | undefined): Profile | undefined {
		return id === undefined ? undefined : this.users.get(id);
	}

	network(id: string | undefined): NetworkRecord | undefined {
		return id === undefined ? undefined : this.networks.get(id);
	}

	/** The recipient an id names (a user or a network), or undefined when it is neither. */
	recipientOf(id: string): NewRecipient | undefined {
		if (this.users.has(id)) return { id, type: "User" };
		if (this.networks.has(id)) return { id, type: "Network" };
		return undefined;
	}

	/** A Recipient record (SPEC.md §2.6). */
	recipient(type: string, id: string): Record<string, unknown> {
		if (type === "Network") return { Id: id, ParticipantType: type, DisplayName: this.network(id)?.Name };
		const user = this.user(id);
		return {
			Id: id,
			ParticipantType: type,
			DisplayName: displayName(user),
			TagLine: user?.JobTitle,
			DefaultVenueId: user?.DefaultVenueId,
		};
	}

	/** A Comment record (SPEC.md §2.7). */
	comment(row: CommentRow): Record<string, unknown> {
		const author = this.user(row.AuthorId);
		return { ...row, AuthorType: "User", AuthorDisplayName: displayName(author), AuthorTagline: author?.JobTitle };
	}

	/** A Post record (SPEC.md §2.5) with what it embeds. */
	post(
		row: PostRow,
		tags: TagRow[],
		recipients: RecipientRow[],
		activities: ActivityRow[],
		comments: CommentRow[],
	): Record<string, unknown> {
		const author = this.user(row.AuthorId);
		const contextUser = this.user(row.ContextId);
		const contextNetwork = this.network(row.ContextId);
		return {
			...row,
			AuthorType: "User",
			AuthorDisplayName: displayName(author),
			AuthorTagline: author?.JobTitle,
			ContextOwnerType: contextUser ? "User" : contextNetwork ? "Network" : undefined,
			ContextOwnerDisplayName: contextUser ? displayName(contextUser) : contextNetwork?.Name,
			ContextOwnerTagLine: contextUser?.JobTitle,
			Recipients: recipients.map(r => this.recipient(r.ParticipantType, r.RecipientId)),
			Comments: comments.map(c => this.comment(c)),
			Tags: tags,
			PostTags: tags.map(t => ({ Id: t.Id, TagTypeId: t.TagType, Name: t.Value })),
			Activities: activities,
		};
	}

	/** Post records for rows and what they embed. */
	posts(rows: PostRow[], embeds: Map<string, PostEmbeds>): Record<string, unknown>[] {
		return rows.map(row => {
			const { tags = [], recipients = [], activities = [], comments = [] } = embeds.get(row.Id) ?? {};
			return this.post(row, tags, recipients, activities, comments);
		});
	}
}
