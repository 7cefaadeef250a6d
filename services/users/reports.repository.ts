import { SqlDatabase, SqlValue } from "../../shared/persistence/sql/database";
import { present } from "../../shared/persistence/sql/rows";
import { AuditRow, ReportRow, ReportStatus } from "./reports.rows";

const reportColumns = `id AS "Id", reporter_id AS "ReporterId", subject_type AS "SubjectType",
	subject_id AS "SubjectId", reason AS "Reason", status AS "Status", created_time AS "CreatedTime",
	action AS "Action", resolved_by AS "ResolvedBy", resolved_time AS "ResolvedTime", note AS "Note"`;

const auditColumns = `id AS "Id", actor AS "Actor", operation AS "Operation", subject_id AS "SubjectId",
	details AS "Details", created_time AS "CreatedTime"`;

const insertReport = `INSERT INTO reports (id, reporter_id, subject_type, subject_id, reason, status, created_time,
	action, resolved_by, resolved_time, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

const insertAudit = `INSERT INTO audit_log (id, actor, operation, subject_id, details, created_time)
	VALUES ($1, $2, $3, $4, $5, $6)`;

/** Reports of abuse (a queue by status, oldest first) and the administrators' audit log (newest first). */
export class ReportsRepository {
	constructor(private readonly db: SqlDatabase) {}

	async add(row: ReportRow): Promise<void> {
		const values: SqlValue[] = [
			row.Id,
			row.ReporterId,
			row.SubjectType,
			row.SubjectId,
			row.Reason,
			row.Status,
			row.CreatedTime,
			row.Action ?? null,
			row.ResolvedBy ?? null,
			row.ResolvedTime ?? null,
			row.Note ?? null,
		];
		await this.db.run(insertReport, values);
	}

	async find(id: string): Promise<ReportRow | undefined> {
		const row = await this.db.get<ReportRow>(`SELECT ${reportColumns} FROM reports WHERE id = $1`, [id]);
		return row && present(row);
	}

	/** Reports of one status (all when undefined), oldest first. */
	async page(status: ReportStatus | undefined, offset: number, limit: number): Promise<ReportRow[]> {
		if (limit <= 0) return [];
		const params: SqlValue[] = [limit, offset];
		if (status !== undefined) params.push(status);
		const rows = await this.db.all<ReportRow>(
			`SELECT ${reportColumns} FROM reports ${status !== undefined ? "WHERE status = $3" : ""}
			ORDER BY created_time, id LIMIT $1 OFFSET $2`,
			params,
		);
		return rows.map(present);
	}

	/** Settles an open report: the report after, or undefined when it is not there or no longer open. */
	async resolve(
		id: string,
		status: "Resolved" | "Dismissed",
		action: string,
		by: string,
		note: string | undefined,
		now: number,
	): Promise<ReportRow | undefined> {
		const row = await this.db.get<ReportRow>(
			`UPDATE reports SET status = $2, action = $3, resolved_by = $4, note = $5, resolved_time = $6
			WHERE id = $1 AND status = 'Open' RETURNING ${reportColumns}`,
			[id, status, action, by, note ?? null, now],
		);
		return row && present(row);
	}

	async audit(row: AuditRow): Promise<void> {
		await this.db.run(insertAudit, [
			row.Id,
			row.Actor,
			row.Operation,
			row.SubjectId ?? null,
			row.Details ?? null,
			row.CreatedTime,
		]);
	}

	/** The audit log, newest first. */
	async auditPage(offset: number, limit: number): Promise<AuditRow[]> {
		if (limit <= 0) return [];
		const rows = await this.db.all<AuditRow>(
			`SELECT ${auditColumns} FROM audit_log ORDER BY created_time DESC, id DESC LIMIT $1 OFFSET $2`,
			[limit, offset],
		);
		return rows.map(present);
	}
}
