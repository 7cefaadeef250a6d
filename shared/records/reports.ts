import { record, w } from "../wire/schema";

/** A report of abuse: what it is about, why, and what an administrator did with it. */
export const AbuseReport = record("AbuseReport", {
	Id: w.guid(),
	ReporterId: w.guid(),
	SubjectType: w.string(),
	SubjectId: w.guid(),
	Reason: w.string(),
	Status: w.string(),
	CreatedTime: w.timestamp(),
	Action: w.string(),
	ResolvedBy: w.string(),
	ResolvedTime: w.timestamp(),
	Note: w.string(),
});

/** One administrator's write, as the audit log keeps it. */
export const AuditEntry = record("AuditEntry", {
	Id: w.guid(),
	Actor: w.string(),
	Operation: w.string(),
	SubjectId: w.string(),
	Details: w.string(),
	CreatedTime: w.timestamp(),
});
