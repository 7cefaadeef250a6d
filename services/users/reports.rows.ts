/** What a report is about. */
export type ReportSubject = "Post" | "Comment" | "User";

export type ReportStatus = "Open" | "Resolved" | "Dismissed";

/** A report of abuse, as the reports domain keeps it. Times in ms. */
export interface ReportRow {
	Id: string;
	ReporterId: string;
	SubjectType: ReportSubject;
	SubjectId: string;
	Reason: string;
	Status: ReportStatus;
	CreatedTime: number;
	/** What an admin did, and who, when it was resolved or dismissed. */
	Action?: string;
	ResolvedBy?: string;
	ResolvedTime?: number;
	Note?: string;
}

/** One administrator's action, as the audit log keeps it. */
export interface AuditRow {
	Id: string;
	/** Who acted: `user:<id>`, `apikey:<id>` or `admin` (the administrator's key). */
	Actor: string;
	/** The operation (DeletePost, ResolveReport…). */
	Operation: string;
	/** The record acted on, when the request named one. */
	SubjectId?: string;
	/** What else the request said (field names and short values; never a password, token or key). */
	Details?: string;
	CreatedTime: number;
}
