import { Context } from "moleculer";
import { Operation } from "./catalogue/operation";
import { callerOf, credentialOf, isAdmin } from "./caller";

/** What the operations middleware records of an administrator's write (reports.audit keeps it). */
export interface AuditInput {
	Actor: string;
	Operation: string;
	SubjectId?: string;
	Details?: string;
}

/** Every service whose actions run catalogue writes: each may record one. */
export const auditCallers = [
	"users",
	"sessions",
	"apiKeys",
	"reports",
	"exports",
	"graph",
	"posts",
	"venues",
	"systems",
	"devices",
	"media",
	"reservations",
	"description",
];

/** Fields never written to the log, by name: credentials, and bodies too large to be worth keeping. */
const withheld = /password|token|key|secret|^data$/i;

/** The first field that names the record acted on. */
const subjectFields = ["Id", "PostId", "UserId", "NetworkId", "VenueId", "ReservationId", "SubjectId"];

/** Field names and short values, never a credential: enough to tell what was done. */
function detailsOf(params: Record<string, unknown>): string {
	const shown = Object.entries(params)
		.filter(([name, value]) => !withheld.test(name) && value !== undefined)
		.map(([name, value]) => `${name}=${JSON.stringify(value).slice(0, 100)}`);
	return shown.join(" ").slice(0, 1000);
}

/**
 * Records an administrator's write in the audit log, after it answered; a failure to record is logged, not thrown (the
 * write is done).
 */
export async function auditAdminWrite(ctx: Context, op: Operation, params: Record<string, unknown>): Promise<void> {
	const caller = callerOf(ctx);
	if (op.reads || !isAdmin(caller)) return;
	const field = subjectFields.find(name => typeof params[name] === "string");
	const entry: AuditInput = {
		Actor: credentialOf(caller) ?? "admin",
		Operation: op.name,
		...(field ? { SubjectId: String(params[field]) } : {}),
		Details: detailsOf(params),
	};
	try {
		await ctx.call("reports.audit", entry);
	} catch (err) {
		ctx.broker
			.getLogger("audit")
			.error(
				{ event: "audit-failed", operation: op.name, actor: entry.Actor, error: err },
				"Recording an admin write failed",
			);
	}
}
