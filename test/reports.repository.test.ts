import { ReportsRepository } from "../services/users/reports.repository";
import { reportsMigrations } from "../services/users/reports.schema";
import { MongoReportsRepository, reportsMongoMigrations } from "../services/users/reports.mongo";
import { AuditRow, ReportRow } from "../services/users/reports.rows";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

let made = 0;

/** A new open report with a unique Id; fields override. */
function newReport(fields: Partial<ReportRow> = {}): ReportRow {
	made += 1;
	return {
		Id: newGuid(),
		ReporterId: newGuid(),
		SubjectType: "Post",
		SubjectId: newGuid(),
		Reason: `reason ${made}`,
		Status: "Open",
		CreatedTime: 10_000 + made,
		...fields,
	};
}

/** A new audit entry with a unique Id; fields override. */
function newEntry(fields: Partial<AuditRow> = {}): AuditRow {
	made += 1;
	return { Id: newGuid(), Actor: "admin", Operation: `Operation${made}`, CreatedTime: 10_000 + made, ...fields };
}

const ids = (rows: Array<{ Id: string }>) => rows.map(row => row.Id);

describe.each(storeEngines)("the reports repository on %s", engine => {
	const under = onStore<RepositoryContract<ReportsRepository>>(engine, {
		domain: "reports",
		sql: { migrations: reportsMigrations, create: db => new ReportsRepository(db) },
		mongo: { migrations: reportsMongoMigrations, create: store => new MongoReportsRepository(store) },
	});

	test("a report is added and found by Id, optional fields absent when not given", async () => {
		const bare = newReport({ SubjectType: "Comment" });
		const full = newReport({
			SubjectType: "User",
			Status: "Resolved",
			Action: "Banned",
			ResolvedBy: "user:root",
			ResolvedTime: 99_000_000_000,
			Note: "repeat offender",
		});
		await under.repo.add(bare);
		await under.repo.add(full);
		expect(await under.repo.find(bare.Id)).toStrictEqual(bare);
		expect(await under.repo.find(full.Id)).toStrictEqual(full);
		expect(await under.repo.find(newGuid())).toBeUndefined();
	});

	test("a page lists one status or all, oldest first (ties by Id), cut by offset and limit", async () => {
		// Earlier than any other report of this suite, so that they lead the lists of all.
		const [x, y] = [newGuid(), newGuid()].sort();
		const reports = [
			newReport({ CreatedTime: 300 }),
			newReport({ CreatedTime: 100, Status: "Dismissed", Action: "None", ResolvedBy: "admin", ResolvedTime: 400 }),
			newReport({ Id: y, CreatedTime: 200 }),
			newReport({ Id: x, CreatedTime: 200 }),
			newReport({ CreatedTime: 50, Status: "Resolved", Action: "Deleted", ResolvedBy: "admin", ResolvedTime: 60 }),
		];
		for (const report of reports) await under.repo.add(report);
		const [r300, d100, y200, x200, r50] = ids(reports);
		expect(ids(await under.repo.page(undefined, 0, 5))).toEqual([r50, d100, x200, y200, r300]);
		expect(ids(await under.repo.page(undefined, 1, 2))).toEqual([d100, x200]);
		expect(ids(await under.repo.page("Open", 0, 3))).toEqual([x200, y200, r300]);
		expect(ids(await under.repo.page("Open", 2, 1))).toEqual([r300]);
		expect(await under.repo.page("Dismissed", 0, 1)).toStrictEqual([reports[1]]);
		expect(ids(await under.repo.page("Resolved", 0, 1))).toEqual([r50]);
		expect(await under.repo.page(undefined, 0, 0)).toEqual([]);
		expect(await under.repo.page("Open", 1_000_000, 10)).toEqual([]);
	});

	test("an open report is resolved once: the second time gives undefined and keeps the first", async () => {
		const report = newReport({ SubjectType: "Comment" });
		await under.repo.add(report);
		const resolved: ReportRow = {
			...report,
			Status: "Resolved",
			Action: "DeletedComment",
			ResolvedBy: "user:mod",
			ResolvedTime: 50_000,
			Note: "spam",
		};
		expect(await under.repo.resolve(report.Id, "Resolved", "DeletedComment", "user:mod", "spam", 50_000)).toStrictEqual(
			resolved,
		);
		expect(await under.repo.resolve(report.Id, "Dismissed", "None", "admin", "again", 60_000)).toBeUndefined();
		expect(await under.repo.find(report.Id)).toStrictEqual(resolved);
		expect(await under.repo.resolve(newGuid(), "Resolved", "None", "admin", undefined, 60_000)).toBeUndefined();
	});

	test("a report dismissed without a note has no Note", async () => {
		const report = newReport();
		await under.repo.add(report);
		const dismissed: ReportRow = {
			...report,
			Status: "Dismissed",
			Action: "None",
			ResolvedBy: "apikey:7",
			ResolvedTime: 70_000,
		};
		expect(await under.repo.resolve(report.Id, "Dismissed", "None", "apikey:7", undefined, 70_000)).toStrictEqual(
			dismissed,
		);
		expect(await under.repo.find(report.Id)).toStrictEqual(dismissed);
		expect(await under.repo.page("Dismissed", 0, 100)).toContainEqual(dismissed);
	});

	test("the audit log lists its entries newest first (ties by Id, down), cut by offset and limit", async () => {
		const [x, y] = [newGuid(), newGuid()].sort();
		const entries = [
			newEntry({ CreatedTime: 900_000, SubjectId: newGuid(), Details: "Reason=spam" }),
			newEntry({ Id: x, CreatedTime: 900_002, Actor: "user:ada" }),
			newEntry({ CreatedTime: 900_001, Actor: "apikey:3", SubjectId: newGuid() }),
			newEntry({ Id: y, CreatedTime: 900_002 }),
			newEntry({ CreatedTime: 800_000 }),
		];
		for (const entry of entries) await under.repo.audit(entry);
		const [e0, x2, e1, y2, e8] = ids(entries);
		expect(ids(await under.repo.auditPage(0, 5))).toEqual([y2, x2, e1, e0, e8]);
		expect(ids(await under.repo.auditPage(1, 2))).toEqual([x2, e1]);
		expect(await under.repo.auditPage(3, 1)).toStrictEqual([entries[0]]);
		expect(await under.repo.auditPage(1, 1)).toStrictEqual([entries[1]]);
		expect(await under.repo.auditPage(0, 0)).toEqual([]);
		expect(await under.repo.auditPage(1_000_000, 10)).toEqual([]);
	});
});
