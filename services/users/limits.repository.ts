import { SqlDatabase } from "../../shared/persistence/sql/database";
import { WindowCount } from "../../shared/attempts";

/** Keys upserted per statement: two bound values each, well under either engine's limit of bound values. */
const keysPerStatement = 500;

/** Attempt counters per (key, window): added to, read back, cleared, purged once expired. */
export class LimitsRepository {
	constructor(private readonly db: SqlDatabase) {}

	/**
	 * Adds each key's count (negative: takes it back) to its counter of the window (`total = total + n`, whatever other
	 * node
	 * adds at the same time) and returns the new totals; the rows expire at `expiresTime`.
	 */
	async add(
		window: number,
		windowMs: number,
		expiresTime: number,
		counts: Record<string, number>,
	): Promise<Record<string, number>> {
		const keys = Object.keys(counts).filter(key => counts[key] !== 0);
		const totals: Record<string, number> = {};
		for (let at = 0; at < keys.length; at += keysPerStatement) {
			const chunk = keys.slice(at, at + keysPerStatement);
			const values: Array<string | number> = [window, windowMs, expiresTime];
			const rows = chunk.map(key => {
				values.push(key, counts[key]);
				return `($${values.length - 1}, $1, $2, $${values.length}, $3)`;
			});
			const added = await this.db.all<{ key: string; total: number }>(
				`INSERT INTO limit_counts (counter_key, window_start, window_ms, total, expires_time) VALUES ${rows.join(", ")}
				ON CONFLICT (counter_key, window_start) DO UPDATE SET total = limit_counts.total + excluded.total, expires_time = excluded.expires_time
				RETURNING counter_key AS "key", total`,
				values,
			);
			for (const row of added) totals[row.key] = Number(row.total);
		}
		return totals;
	}

	/** The windows of these keys that have not expired by `now`, oldest first. */
	async windowsOf(keys: readonly string[], now: number): Promise<WindowCount[]> {
		if (keys.length === 0) return [];
		const rows = await this.db.all<WindowCount>(
			`SELECT counter_key AS "key", window_start AS "window", window_ms AS "windowMs", total AS "count" FROM limit_counts
			WHERE ${this.db.dialect.anyOf("counter_key", "$1")} AND expires_time > $2 ORDER BY window_start`,
			[this.db.dialect.listParam(keys), now],
		);
		return rows.map(row => ({
			key: row.key,
			window: Number(row.window),
			windowMs: Number(row.windowMs),
			count: Number(row.count),
		}));
	}

	/** Forgets every window of these keys: how many rows there were. */
	async clear(keys: readonly string[]): Promise<number> {
		if (keys.length === 0) return 0;
		return this.db.run(`DELETE FROM limit_counts WHERE ${this.db.dialect.anyOf("counter_key", "$1")}`, [
			this.db.dialect.listParam(keys),
		]);
	}

	/** Deletes the windows expired by `now`: how many. */
	async removeExpired(now: number): Promise<number> {
		return this.db.run("DELETE FROM limit_counts WHERE expires_time <= $1", [now]);
	}
}
