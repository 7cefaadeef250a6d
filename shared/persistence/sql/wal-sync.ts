import fs from "node:fs";
import path from "node:path";

/** `fs.fdatasync` on libuv's thread pool: the event loop serves other requests meanwhile. */
const fdatasync = (fd: number) =>
	new Promise<void>((resolve, reject) => fs.fdatasync(fd, err => (err ? reject(err) : resolve())));

/**
 * The fsyncs of one SQLite database file and its write-ahead log, done off the event loop. SQLite
 * runs with synchronous=OFF (it only writes), and the caller makes the log durable with `syncLog`
 * before it acknowledges a commit, and the database file with `syncDatabase` before the log may
 * be reset (see SqliteDatabase's checkpoint).
 */
export class WalFiles {
	private log: number | undefined;

	private database: number | undefined;

	constructor(private readonly file: string) {}

	/** Makes every commit written so far durable; the first call also makes the files' names durable. */
	async syncLog(): Promise<void> {
		if (this.log === undefined) await this.open();
		await fdatasync(this.log!);
	}

	async syncDatabase(): Promise<void> {
		if (this.database === undefined) await this.open();
		await fdatasync(this.database!);
	}

	/** The log's size now (SQLite grows it until a checkpoint truncates it). */
	logBytes(): number {
		return this.log === undefined ? 0 : fs.fstatSync(this.log).size;
	}

	close(): void {
		for (const fd of [this.log, this.database]) if (fd !== undefined) fs.closeSync(fd);
		this.log = this.database = undefined;
	}

	/**
	 * The log exists once SQLite has committed to it, and keeps its inode while this process's
	 * connection is open (SQLite deletes it only when the last connection closes). SQLite at
	 * synchronous=OFF never fsyncs the folder, so a file just created could vanish in a power cut.
	 */
	private async open(): Promise<void> {
		this.database ??= fs.openSync(this.file, "r");
		this.log ??= fs.openSync(`${this.file}-wal`, "r");
		const folder = fs.openSync(path.dirname(this.file), "r");
		try {
			await new Promise<void>((resolve, reject) => fs.fsync(folder, err => (err ? reject(err) : resolve())));
		} finally {
			fs.closeSync(folder);
		}
	}
}
