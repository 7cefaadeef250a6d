import { SqlDatabase } from "../../shared/persistence/sql/database";
import { present } from "../../shared/persistence/sql/rows";
import { Caller } from "../../shared/caller";
import { ArchiveRow, ExportRow } from "./exports.rows";

const exportColumns = `id AS "Id", user_id AS "UserId", status AS "Status", progress AS "Progress", caller AS "Caller",
	run AS "Run", created_time AS "CreatedTime", updated_time AS "UpdatedTime", completed_time AS "CompletedTime"`;

/** What its run may still write: an export that is neither Ready nor Failed, and is still that run's. */
const heldBy = "id = $1 AND run = $2 AND status IN ('Pending', 'Running')";

type StoredExport = Omit<ExportRow, "Caller"> & { Caller: string };

const exportOf = (row: StoredExport): ExportRow => present({ ...row, Caller: JSON.parse(row.Caller) as Caller });

/**
 * Exports of users' data: each one's status and progress, held by one run at a time (a restart takes the next run, and
 * an older run's writes then change nothing), and the archives of finished ones in a table of their own.
 */
export class ExportsRepository {
	constructor(private readonly db: SqlDatabase) {}

	async add(row: ExportRow): Promise<void> {
		await this.db.run(
			`INSERT INTO data_exports (id, user_id, status, progress, caller, run, created_time, updated_time)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			[
				row.Id,
				row.UserId,
				row.Status,
				row.Progress,
				JSON.stringify(row.Caller),
				row.Run,
				row.CreatedTime,
				row.UpdatedTime,
			],
		);
	}

	/** A deleted account's exports: the archives first, so none is left without its export to find it by. */
	async removeAllOf(userId: string): Promise<number> {
		return this.db.transaction(async tx => {
			await tx.run(
				"DELETE FROM data_export_archives WHERE export_id IN (SELECT id FROM data_exports WHERE user_id = $1)",
				[userId],
			);
			return tx.run("DELETE FROM data_exports WHERE user_id = $1", [userId]);
		});
	}

	async find(id: string): Promise<ExportRow | undefined> {
		const row = await this.db.get<StoredExport>(`SELECT ${exportColumns} FROM data_exports WHERE id = $1`, [id]);
		return row && exportOf(row);
	}

	/** The user's export still under way, if any. */
	async underWay(userId: string): Promise<ExportRow | undefined> {
		const row = await this.db.get<StoredExport>(
			`SELECT ${exportColumns} FROM data_exports WHERE user_id = $1 AND status IN ('Pending', 'Running')
			ORDER BY created_time DESC LIMIT 1`,
			[userId],
		);
		return row && exportOf(row);
	}

	/** The run's progress, which is also its sign of life: false when the export is no longer this run's. */
	async progress(id: string, run: number, progress: number, now: number): Promise<boolean> {
		const changed = await this.db.run(
			`UPDATE data_exports SET status = 'Running', progress = $3, updated_time = $4 WHERE ${heldBy}`,
			[id, run, progress, now],
		);
		return changed > 0;
	}

	/** The archive and the export Ready, in one transaction: false (and nothing written) when no longer this run's. */
	async complete(id: string, run: number, archive: ArchiveRow, now: number): Promise<boolean> {
		return this.db.transaction(async tx => {
			const changed = await tx.run(
				`UPDATE data_exports SET status = 'Ready', progress = 100, updated_time = $3, completed_time = $3
				WHERE ${heldBy}`,
				[id, run, now],
			);
			if (!changed) return false;
			await tx.run(
				`INSERT INTO data_export_archives (export_id, data, etag) VALUES ($1, $2, $3)
				ON CONFLICT (export_id) DO UPDATE SET data = excluded.data, etag = excluded.etag`,
				[id, archive.Data, archive.ETag],
			);
			return true;
		});
	}

	/** The export Failed, unless it is no longer this run's. */
	async fail(id: string, run: number, now: number): Promise<boolean> {
		const changed = await this.db.run(
			`UPDATE data_exports SET status = 'Failed', updated_time = $3, completed_time = $3 WHERE ${heldBy}`,
			[id, run, now],
		);
		return changed > 0;
	}

	async archive(exportId: string): Promise<ArchiveRow | undefined> {
		return this.db.get<ArchiveRow>(
			`SELECT export_id AS "ExportId", data AS "Data", etag AS "ETag" FROM data_export_archives WHERE export_id = $1`,
			[exportId],
		);
	}

	/**
	 * Takes over at most `limit` unfinished exports quiet since before `before` (their run's process died): each
	 * Pending again under the next run, as a run of this call's; another node's sweep at once takes none of the same.
	 */
	async restartQuiet(before: number, now: number, limit: number): Promise<ExportRow[]> {
		const quiet = "status IN ('Pending', 'Running') AND updated_time < $1";
		const rows = await this.db.all<StoredExport>(
			`UPDATE data_exports SET run = run + 1, status = 'Pending', progress = 0, updated_time = $2
			WHERE id IN (SELECT id FROM data_exports WHERE ${quiet} ORDER BY updated_time LIMIT $3) AND ${quiet}
			RETURNING ${exportColumns}`,
			[before, now, limit],
		);
		return rows.map(exportOf);
	}
}
