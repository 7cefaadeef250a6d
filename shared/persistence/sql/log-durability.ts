/** One who waits for a commit to be on disk. */
interface Waiter {
	commit: number;
	resolve: () => void;
	reject: (err: Error) => void;
}

/**
 * Which commits of a write-ahead log are on disk. Commits are numbered as written; fsyncs run one at a time, each
 * covering every commit written before it began, the next starting as the last ends if commits wait: the next group's
 * writes run during an fsync, and a busy store pays one fsync per group. Without a `sync` (memory, a bulk load) a
 * commit is durable when written.
 */
export class LogDurability {
	private written = 0;

	private durable = 0;

	private syncing = false;

	private waiters: Waiter[] = [];

	private failure: Error | undefined;

	/**
	 * `sync` makes every commit written so far durable; `failed` turns its error into the one every
	 * waiter, now and later, is refused with (nothing after a failed fsync can be trusted to be on disk).
	 * `synced` is told after each fsync.
	 */
	constructor(
		private readonly sync: (() => Promise<void>) | undefined,
		private readonly failed: (err: unknown) => Error,
		private readonly synced: () => void = () => undefined,
	) {}

	/** A commit was written to the log: its number, for `durableAt`. */
	committed(): number {
		this.written += 1;
		if (!this.sync) this.durable = this.written;
		else this.startSync();
		return this.written;
	}

	/** Settles once commit `commit` is on disk; by default, every commit written so far (what a read may have seen). */
	durableAt(commit = this.written): Promise<void> {
		if (this.failure) return Promise.reject(this.failure);
		if (commit <= this.durable) return Promise.resolve();
		return new Promise((resolve, reject) => this.waiters.push({ commit, resolve, reject }));
	}

	private startSync(): void {
		if (this.syncing || this.failure || this.written <= this.durable) return;
		this.syncing = true;
		const covered = this.written;
		this.sync!().then(
			() => {
				this.syncing = false;
				this.durable = covered;
				const ready = this.waiters.filter(w => w.commit <= covered);
				this.waiters = this.waiters.filter(w => w.commit > covered);
				for (const w of ready) w.resolve();
				this.synced();
				this.startSync();
			},
			(err: unknown) => {
				this.syncing = false;
				this.failure = this.failed(err);
				const waiting = this.waiters;
				this.waiters = [];
				for (const w of waiting) w.reject(this.failure);
			},
		);
	}
}
