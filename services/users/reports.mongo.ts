import { Collection, Filter } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { ReportsRepository } from "./reports.repository";
import { AuditRow, ReportRow, ReportStatus, ReportSubject } from "./reports.rows";

interface ReportDocument {
	_id: string;
	reporter_id: string;
	subject_type: ReportSubject;
	subject_id: string;
	reason: string;
	status: ReportStatus;
	created_time: number;
	action?: string;
	resolved_by?: string;
	resolved_time?: number;
	note?: string;
}

interface AuditDocument {
	_id: string;
	actor: string;
	operation: string;
	subject_id?: string;
	details?: string;
	created_time: number;
}

export const reportsMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "reports by status and by subject, audit_log by time",
		apply: async db => {
			const reports = db.collection("reports");
			await reports.createIndex({ status: 1, created_time: 1, _id: 1 }, { name: "reports_by_status" });
			await reports.createIndex({ subject_type: 1, subject_id: 1 }, { name: "reports_by_subject" });
			await db.collection("audit_log").createIndex({ created_time: 1, _id: 1 }, { name: "audit_log_by_time" });
		},
	},
];

const reportDocumentOf = (r: ReportRow): ReportDocument => ({
	_id: r.Id,
	reporter_id: r.ReporterId,
	subject_type: r.SubjectType,
	subject_id: r.SubjectId,
	reason: r.Reason,
	status: r.Status,
	created_time: r.CreatedTime,
	...(r.Action !== undefined ? { action: r.Action } : {}),
	...(r.ResolvedBy !== undefined ? { resolved_by: r.ResolvedBy } : {}),
	...(r.ResolvedTime !== undefined ? { resolved_time: r.ResolvedTime } : {}),
	...(r.Note !== undefined ? { note: r.Note } : {}),
});

const toReport = (d: ReportDocument): ReportRow => ({
	Id: d._id,
	ReporterId: d.reporter_id,
	SubjectType: d.subject_type,
	SubjectId: d.subject_id,
	Reason: d.reason,
	Status: d.status,
	CreatedTime: d.created_time,
	...(d.action != null ? { Action: d.action } : {}),
	...(d.resolved_by != null ? { ResolvedBy: d.resolved_by } : {}),
	...(d.resolved_time != null ? { ResolvedTime: d.resolved_time } : {}),
	...(d.note != null ? { Note: d.note } : {}),
});

const auditDocumentOf = (a: AuditRow): AuditDocument => ({
	_id: a.Id,
	actor: a.Actor,
	operation: a.Operation,
	...(a.SubjectId !== undefined ? { subject_id: a.SubjectId } : {}),
	...(a.Details !== undefined ? { details: a.Details } : {}),
	created_time: a.CreatedTime,
});

const toAudit = (d: AuditDocument): AuditRow => ({
	Id: d._id,
	Actor: d.actor,
	Operation: d.operation,
	...(d.subject_id != null ? { SubjectId: d.subject_id } : {}),
	...(d.details != null ? { Details: d.details } : {}),
	CreatedTime: d.created_time,
});

/** Reports and the audit log on MongoDB: what `ReportsRepository` does on SQL. */
export class MongoReportsRepository implements RepositoryContract<ReportsRepository> {
	private readonly reports: Collection<ReportDocument>;
	private readonly log: Collection<AuditDocument>;

	constructor(store: MongoStore) {
		this.reports = store.collection<ReportDocument>("reports");
		this.log = store.collection<AuditDocument>("audit_log");
	}

	async add(row: ReportRow): Promise<void> {
		await this.reports.insertOne(reportDocumentOf(row));
	}

	async find(id: string): Promise<ReportRow | undefined> {
		const doc = await this.reports.findOne({ _id: id });
		return doc ? toReport(doc) : undefined;
	}

	async page(status: ReportStatus | undefined, offset: number, limit: number): Promise<ReportRow[]> {
		// A limit of 0 is no limit on MongoDB.
		if (limit <= 0) return [];
		const query: Filter<ReportDocument> = status !== undefined ? { status } : {};
		const docs = await this.reports.find(query).sort({ created_time: 1, _id: 1 }).skip(offset).limit(limit).toArray();
		return docs.map(toReport);
	}

	async resolve(
		id: string,
		status: "Resolved" | "Dismissed",
		action: string,
		by: string,
		note: string | undefined,
		now: number,
	): Promise<ReportRow | undefined> {
		const doc = await this.reports.findOneAndUpdate(
			{ _id: id, status: "Open" },
			{
				$set: { status, action, resolved_by: by, resolved_time: now, ...(note !== undefined ? { note } : {}) },
				...(note === undefined ? { $unset: { note: "" } } : {}),
			},
			{ returnDocument: "after" },
		);
		return doc ? toReport(doc) : undefined;
	}

	async audit(row: AuditRow): Promise<void> {
		await this.log.insertOne(auditDocumentOf(row));
	}

	async auditPage(offset: number, limit: number): Promise<AuditRow[]> {
		if (limit <= 0) return [];
		const docs = await this.log.find({}).sort({ created_time: -1, _id: -1 }).skip(offset).limit(limit).toArray();
		return docs.map(toAudit);
	}
}
