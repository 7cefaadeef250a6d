import { operations, route } from "./operation";
import { requiredText, text } from "./fields";
import { w } from "../wire/schema";
import { AbuseReport, AuditEntry } from "../records/reports";

const page = {
	Offset: w.number().integer().min(0).default(0),
	Limit: w.number().integer().min(1).max(1000).default(50),
};

/** Reports of abuse (the EU Digital Services Act's notice and action), and the administrators' audit log. */
export const reportsOperations = operations({
	CreateReport: {
		summary: "Report a post, comment or user one can see, with a reason; administrators act on it",
		action: "reports.create",
		routes: [route("POST /Reports")],
		request: w.object({
			SubjectType: w.string().valid("Post", "Comment", "User").required(),
			SubjectId: w.guid().required(),
			Reason: requiredText(2000),
		}),
		response: AbuseReport,
		access: "user",
	},
	AllReports: {
		summary: "Reports, oldest first, by status (Open, Resolved, Dismissed; all when none) (administrators)",
		action: "reports.list",
		routes: [route("GET /Reports")],
		request: w.object({ Status: w.string().valid("Open", "Resolved", "Dismissed"), ...page }),
		response: w.array().items(AbuseReport),
		access: "admin",
		reads: true,
	},
	ResolveReport: {
		summary:
			"Act on an open report (administrators): TakeDown deletes the post or comment (cloaks a user), " +
			"Cloak hides the author (or user), Dismiss does nothing; recorded in the audit log",
		action: "reports.resolve",
		routes: [route("POST /Reports/:Id/Resolve")],
		request: w.object({
			Id: w.guid().required(),
			Action: w.string().valid("TakeDown", "Cloak", "Dismiss").required(),
			Note: text(2000),
		}),
		response: AbuseReport,
		access: "admin",
	},
	AuditLog: {
		summary: "Every administrator's write, newest first: who, which operation, on what (administrators)",
		action: "reports.auditLog",
		routes: [route("GET /AuditLog")],
		request: w.object(page),
		response: w.array().items(AuditEntry),
		access: "admin",
		reads: true,
	},
});
