import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteDatabase } from "../shared/persistence/sql/sqlite";

/**
 * The embedded engine commits the transactions of one turn of the event loop together (one fsync):
 * each is still all-or-nothing on its own, and none is answered before its rows are committed.
 */
describe("SQLite group commit", () => {
	let dir: string;
	let db: SqliteDatabase;
	const file = () => path.join(dir, "group.sqlite");

	beforeEach(async () => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-group-"));
		db = new SqliteDatabase(file());
		await db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");
	});
	afterEach(async () => {
		await db.close();
		fs.rmSync(dir, { recursive: true, force: true });
	});

	/** What another connection sees: only what is committed. */
	const committedRows = async () => {
		const other = new SqliteDatabase(file());
		try {
			return (await other.all<{ v: string }>("SELECT v FROM t ORDER BY id")).map(r => r.v);
		} finally {
			await other.close();
		}
	};

	test("concurrent transactions: a failing one undoes only its own writes, and each is answered once committed", async () => {
		const outcomes = await Promise.allSettled(
			Array.from({ length: 20 }, (_, i) =>
				db.transaction(async tx => {
					await tx.run("INSERT INTO t (v) VALUES ($1)", [`a${i}`]);
					await tx.run("INSERT INTO t (v) VALUES ($1)", [`b${i}`]);
					if (i === 7) throw new Error("refused");
					return i;
				}),
			),
		);
		expect(outcomes.filter(o => o.status === "rejected")).toHaveLength(1);
		const rows = await committedRows();
		expect(rows).toHaveLength(38);
		expect(rows).not.toContain("a7");
		expect(rows).not.toContain("b7");
	});

	test("a unique violation fails that write alone; single writes outside transactions are committed when answered", async () => {
		const outcomes = await Promise.allSettled([db.run("INSERT INTO t (v) VALUES ('x')"), db.run("INSERT INTO t (v) VALUES ('x')"), db.get("INSERT INTO t (v) VALUES ('y') RETURNING id")]);
		expect(outcomes.map(o => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
		expect(await committedRows()).toEqual(["x", "y"]);
	});

	test("a read waits for the open group and sees only committed rows", async () => {
		const write = db.run("INSERT INTO t (v) VALUES ('z')");
		const read = db.all<{ v: string }>("SELECT v FROM t");
		await write;
		expect((await read).map(r => r.v)).toEqual(["z"]);
	});
});
