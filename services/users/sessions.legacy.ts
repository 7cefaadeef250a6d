import { LegacyDoc, LegacyImport, legacyText } from "../../shared/persistence/legacy";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { SessionRow, SessionsRepository } from "./sessions.repository";

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** A session document of the former store: keyed by the token's SHA-256 already. */
function sessionOf(doc: LegacyDoc): SessionRow {
	const created = Number(doc.CreatedTime);
	return {
		Id: doc._id,
		UserId: String(doc.UserId),
		UserName: legacyText(doc.UserName) ?? "",
		DisplayName: text(doc.DisplayName),
		Roles: Array.isArray(doc.Roles) ? doc.Roles.map(String) : [],
		Persistent: doc.Persistent === true,
		TtlMs: Number(doc.TtlMs),
		CreatedTime: created,
		SlidTime: Number(doc.SlidAt ?? created),
		ExpiresTime: Number(doc.ExpiresAt),
	};
}

/** The former NeDB collection of sessions: those still open are kept, so nobody is signed out by the upgrade. */
export const sessionsLegacy: LegacyImport<RepositoryContract<SessionsRepository>> = {
	sessions: async (repo, doc) => {
		if (Number(doc.ExpiresAt) > Date.now()) await repo.importSession(sessionOf(doc));
	},
};
