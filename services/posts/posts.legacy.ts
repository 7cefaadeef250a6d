import { LegacyDoc, LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { PostsRepository } from "./posts.repository";
import { ActivityRow, NewRecipient, ParticipantType, PostRow, TagRow } from "./posts.rows";

const time = (value: unknown, fallback: number) => (typeof value === "number" ? value : fallback);
const list = (value: unknown) => (Array.isArray(value) ? (value as Array<Record<string, unknown>>) : []);

/**
 * A post document of the former store: its fields, with Tags, Recipients ("User:<id>" or
 * "Network:<id>") and Activities kept inside it; the derived TagNames, Audience and ExpiresAt are
 * left behind (the new tables derive them).
 */
function legacyPost(doc: LegacyDoc) {
	const created = time(doc.CreatedTime, 0);
	const post: PostRow = {
		Id: doc._id,
		AuthorId: String(doc.AuthorId),
		IsPrivate: doc.IsPrivate === true,
		ContextId: legacyText(doc.ContextId),
		AuthorVenueId: legacyText(doc.AuthorVenueId),
		Content: legacyText(doc.Content) ?? "",
		MessageType: time(doc.MessageType, 0),
		ExpirationDate: typeof doc.ExpirationDate === "number" ? doc.ExpirationDate : undefined,
		Url: legacyText(doc.Url),
		ContentKey: legacyText(doc.ContentKey),
		ContentParameters: legacyText(doc.ContentParameters),
		CreatedTime: created,
		UpdatedTime: time(doc.UpdatedTime, created),
		ContentCreatedTime: time(doc.ContentCreatedTime, created),
		ContentUpdatedTime: time(doc.ContentUpdatedTime, created),
	};
	const seen = new Set<string>();
	const tags: TagRow[] = list(doc.Tags)
		.filter(t => {
			const name = String(t.Value).toLowerCase();
			return !seen.has(name) && !!seen.add(name);
		})
		.map(t => ({
			Id: String(t.Id),
			PostId: doc._id,
			TagType: time(t.TagType, 0),
			Value: String(t.Value),
			CreatedTime: time(t.CreatedTime, created),
			UpdatedTime: time(t.UpdatedTime, created),
		}));
	const recipients: NewRecipient[] = ((doc.Recipients as string[] | undefined) ?? []).map(key => {
		const [type, id] = String(key).split(":");
		return { id, type: type as ParticipantType };
	});
	const activities: ActivityRow[] = list(doc.Activities).map(a => ({
		Id: String(a.Id),
		PostId: doc._id,
		Message: String(a.Message),
		CreatedTime: time(a.CreatedTime, created),
	}));
	return { post, tags, recipients, activities };
}

/** The former NeDB collections of the posts domain, written through the repository (idempotent). */
export const postsLegacy: LegacyImport<RepositoryContract<PostsRepository>> = {
	posts: (repo, doc) => repo.importPost(legacyPost(doc)),
	comments: (repo, doc) =>
		repo.importComment({
			Id: doc._id,
			PostId: String(doc.PostId),
			ContextId: legacyText(doc.ContextId),
			AuthorId: String(doc.AuthorId),
			AuthorVenueId: legacyText(doc.AuthorVenueId),
			Content: legacyText(doc.Content) ?? "",
			ContentCreatedTime: time(doc.ContentCreatedTime, time(doc.CreatedTime, 0)),
			CreatedTime: time(doc.CreatedTime, 0),
			UpdatedTime: time(doc.UpdatedTime, time(doc.CreatedTime, 0)),
		}),
};
