import { Context } from "moleculer";
import { callerOf } from "../../shared/caller";
import { displayName } from "../../shared/profiles";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { RecordNames } from "./post-records";
import { PostsRepository } from "./posts.repository";
import { NewRecipient, PostEdit, PostRow } from "./posts.rows";

/** What an UpdatePost request may change, as the repository takes it: an empty Url or key clears it. */
export interface PostEditRequest {
	Content?: string;
	Url?: string;
	ContentKey?: string;
	ContentParameters?: string;
}

export function postEditOf({ Content, Url, ContentKey, ContentParameters }: PostEditRequest): PostEdit {
	const clearable = (value: string | undefined) => (value === undefined ? undefined : value || null);
	return {
		...(Content ? { Content } : {}),
		Url: clearable(Url),
		ContentKey: clearable(ContentKey),
		ContentParameters: clearable(ContentParameters),
	};
}

/** The activity an edit adds: who edited, by their name (an administrator's key has none). */
export async function editedBy(ctx: Context): Promise<string> {
	const userId = callerOf(ctx)?.userId;
	if (!userId) return "An administrator edited the post";
	const names = await RecordNames.of(ctx, [userId], []);
	return `${displayName(names.user(userId)) ?? "Someone"} edited the post`;
}

/** The tags and recipients a post is listed by (the keys of the kept lists and streams it reached). */
export async function listedBy(repo: RepositoryContract<PostsRepository>, post: PostRow) {
	const parts = await repo.parts([post.Id]);
	const tags = (parts.tags.get(post.Id) ?? []).map(tag => tag.Value);
	const recipients: NewRecipient[] = (parts.recipients.get(post.Id) ?? []).map(r => ({
		id: r.RecipientId,
		type: r.ParticipantType,
	}));
	return { tags, recipients };
}
