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
		const outcomes = await Promise.allSettled([
			db.run("INSERT INTO t (v) VALUES ('x')"),
			db.run("INSERT INTO t (v) VALUES ('x')"),
			db.get("INSERT INTO t (v) VALUES ('y') RETURNING id"),
		]);
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

/**
 * Acknowledged = durable, with the fsync off the event loop: SQLite only writes its log, and Plaza
 * fsyncs it (fs.fdatasync, on libuv's thread pool) before a write is answered or a read sees it.
 */
describe("SQLite durable commit", () => {
	let dir: string;
	let db: SqliteDatabase;
	const file = () => path.join(dir, "durable.sqlite");
	/** The file an fsync'd descriptor is open on. */
	const fileOf = (fd: number) => fs.readlinkSync(`/proc/self/fd/${fd}`);
	type Callback = (err: NodeJS.ErrnoException | null) => void;

	beforeEach(async () => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-durable-"));
		db = new SqliteDatabase(file());
		await db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
	});
	afterEach(async () => {
		jest.restoreAllMocks();
		await db.close();
		fs.rmSync(dir, { recursive: true, force: true });
	});

	const turns = async (n: number) => {
		for (let i = 0; i < n; i++) await new Promise(resolve => setImmediate(resolve));
	};

	test("a write is answered, and seen by reads, only once its log's fsync has completed", async () => {
		const held: Array<() => void> = [];
		const real = fs.fdatasync;
		jest.spyOn(fs, "fdatasync").mockImplementation((fd: number, callback: Callback) => {
			held.push(() => real(fd, callback));
		});
		let answered = false;
		let read: string[] | undefined;
		const write = db.run("INSERT INTO t (v) VALUES ('kept')").then(() => (answered = true));
		await turns(5);
		const reading = db.all<{ v: string }>("SELECT v FROM t").then(rows => (read = rows.map(r => r.v)));
		await turns(5);
		expect(held).toHaveLength(1);
		expect(fileOf(Number((fs.fdatasync as unknown as jest.Mock<void, [number, unknown]>).mock.calls[0][0]))).toBe(
			`${file()}-wal`,
		);
		expect(answered).toBe(false);
		expect(read).toBeUndefined();
		held.shift()!();
		await Promise.all([write, reading]);
		expect(answered).toBe(true);
		expect(read).toEqual(["kept"]);
		// Another connection (another process after a restart) reads it from the files.
		const other = new SqliteDatabase(file());
		try {
			expect((await other.all<{ v: string }>("SELECT v FROM t")).map(r => r.v)).toEqual(["kept"]);
		} finally {
			await other.close();
		}
	});

	test("while one group's fsync runs, the next group is written; it is answered, and a read that saw it too, only after an fsync begun after it", async () => {
		const held: Array<() => void> = [];
		const real = fs.fdatasync;
		jest.spyOn(fs, "fdatasync").mockImplementation((fd: number, callback: Callback) => {
			held.push(() => real(fd, callback));
		});
		const answered: string[] = [];
		const first = db.run("INSERT INTO t (v) VALUES ('first')").then(() => answered.push("first"));
		await turns(5);
		expect(held).toHaveLength(1);
		// The first group's fsync is in flight: the second is written meanwhile, not answered.
		const second = db.run("INSERT INTO t (v) VALUES ('second')").then(() => answered.push("second"));
		await turns(5);
		const other = new SqliteDatabase(file());
		try {
			expect((await other.all<{ v: string }>("SELECT v FROM t ORDER BY id")).map(r => r.v)).toEqual([
				"first",
				"second",
			]);
		} finally {
			await other.close();
		}
		const reading = db
			.all<{ v: string }>("SELECT v FROM t ORDER BY id")
			.then(rows => answered.push(`read ${rows.map(r => r.v).join(",")}`));
		// A read that fails is refused at once, not left waiting (nor unhandled) while the fsync runs.
		await expect(db.all("SELECT missing FROM t")).rejects.toThrow(/no such column/);
		await turns(5);
		expect(held).toHaveLength(1);
		expect(answered).toEqual([]);
		// The first fsync ends: its group is answered, and one fsync starts for the second (which the read saw).
		held.shift()!();
		await first;
		await turns(5);
		expect(answered).toEqual(["first"]);
		expect(held).toHaveLength(1);
		held.shift()!();
		await Promise.all([second, reading]);
		// Both waited for the same fsync; which of the two is told first does not matter.
		expect(answered[0]).toBe("first");
		expect(answered.slice(1).sort()).toEqual(["read first,second", "second"]);
	});

	test("a group whose fsync fails is answered with an error, and the store then serves nothing it could lose", async () => {
		jest.spyOn(fs, "fdatasync").mockImplementationOnce((_fd: number, callback: Callback) => {
			setImmediate(() => callback(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" })));
		});
		const outcomes = await Promise.allSettled([
			db.run("INSERT INTO t (v) VALUES ('a')"),
			db.run("INSERT INTO t (v) VALUES ('b')"),
		]);
		expect(outcomes.map(o => o.status)).toEqual(["rejected", "rejected"]);
		await expect(db.all("SELECT v FROM t")).rejects.toThrow(/must be restarted/);
		await expect(db.run("INSERT INTO t (v) VALUES ('c')")).rejects.toThrow(/must be restarted/);
	});

	test("a full log is copied into the database file, fsynced, and only then emptied; every row survives a reopen", async () => {
		const events: Array<{ file: string; logBytes: number }> = [];
		const real = fs.fdatasync;
		jest.spyOn(fs, "fdatasync").mockImplementation((fd: number, callback: Callback) => {
			events.push({ file: fileOf(fd), logBytes: fs.statSync(`${file()}-wal`).size });
			real(fd, callback);
		});
		const text = "x".repeat(2000);
		for (let batch = 0; batch < 30; batch++)
			await Promise.all(
				Array.from({ length: 100 }, (_, i) => db.run("INSERT INTO t (v) VALUES ($1)", [`${batch}-${i}-${text}`])),
			);
		await db.all("SELECT count(*) AS n FROM t");
		await turns(20);
		const databaseSyncs = events.filter(e => e.file === file());
		expect(databaseSyncs.length).toBeGreaterThan(0);
		// When the database file was fsynced, the log still held everything.
		for (const e of databaseSyncs) expect(e.logBytes).toBeGreaterThan(4 * 1024 * 1024);
		expect(fs.statSync(`${file()}-wal`).size).toBeLessThan(4 * 1024 * 1024);
		await db.close();
		db = new SqliteDatabase(file());
		expect(await db.get<{ n: number }>("SELECT count(*) AS n FROM t")).toEqual({ n: 3000 });
	});

	test("writes that go on while a checkpoint waits for the log's fsync bring one checkpoint, not a second of an empty log", async () => {
		const databaseSyncs: number[] = [];
		const real = fs.fdatasync;
		jest.spyOn(fs, "fdatasync").mockImplementation((fd: number, callback: Callback) => {
			if (fileOf(fd) === file()) databaseSyncs.push(fs.statSync(`${file()}-wal`).size);
			// A slow disk: the next groups are written while this fsync runs.
			setTimeout(() => real(fd, callback), 2);
		});
		const text = "x".repeat(2000);
		const writes: Array<Promise<number>> = [];
		for (let turn = 0; turn < 150; turn++) {
			for (let i = 0; i < 20; i++) writes.push(db.run("INSERT INTO t (v) VALUES ($1)", [`${turn}-${i}-${text}`]));
			await new Promise(resolve => setTimeout(resolve, 1));
		}
		await Promise.all(writes);
		await db.run("INSERT INTO t (v) VALUES ('after')");
		await turns(20);
		expect(databaseSyncs.length).toBeGreaterThan(0);
		// Each fsync of the database file was a checkpoint's, with a full log to copy.
		for (const logBytes of databaseSyncs) expect(logBytes).toBeGreaterThan(4 * 1024 * 1024);
	});
});
