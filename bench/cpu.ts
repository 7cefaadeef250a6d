import { LoadResult } from "./load";
import { cpuTimesOf } from "./plaza-process";
import { onServer } from "../test/support/postgres";

/**
 * A process whose CPU is counted, and the group its time is added to (one per Plaza node, "postgres" for all the
 * database's backends).
 */
export interface Measured {
	group: string;
	pid: number;
}

/**
 * The CPU a load cost, per request answered, in µs: each group's user and system time, and the load generator's own
 * (this process).
 */
export interface CpuPerRequest {
	result: LoadResult;
	groups: Array<{ group: string; user: number; system: number }>;
	loadGenerator: number;
}

/**
 * Runs `run` and reads each process's CPU time from /proc before and after it. `processes` is asked
 * at both ends: a PostgreSQL pool may open backends during the load (counted from zero), and one
 * that ended meanwhile is lost, which a warmed-up pool makes rare.
 */
export async function cpuPerRequest(
	processes: () => Promise<Measured[]>,
	run: () => Promise<LoadResult>,
): Promise<CpuPerRequest> {
	const before = new Map((await processes()).map(p => [p.pid, timesOf(p.pid)]));
	const own = process.cpuUsage();
	const result = await run();
	const ownUs = process.cpuUsage(own);
	const requests = Math.max(1, result.requests);
	const groups = new Map<string, { user: number; system: number }>();
	for (const { group, pid } of await processes()) {
		const now = timesOf(pid);
		if (!now) continue;
		const then = before.get(pid) ?? { user: 0, system: 0 };
		const sum = groups.get(group) ?? { user: 0, system: 0 };
		groups.set(group, { user: sum.user + now.user - then.user, system: sum.system + now.system - then.system });
	}
	const perRequest = (ms: number) => Math.round((ms * 1000) / requests);
	return {
		result,
		groups: [...groups].map(([group, ms]) => ({ group, user: perRequest(ms.user), system: perRequest(ms.system) })),
		loadGenerator: Math.round((ownUs.user + ownUs.system) / requests),
	};
}

/** A process's CPU times, or undefined once it has ended. */
function timesOf(pid: number): { user: number; system: number } | undefined {
	try {
		return cpuTimesOf(pid);
	} catch {
		return undefined;
	}
}

/** The server processes of PostgreSQL serving `database` now (its backends). */
export async function postgresBackends(database: string): Promise<Measured[]> {
	const pids = await onServer(
		async client =>
			(await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [database])).rows,
	);
	return pids.map(({ pid }) => ({ group: "postgres", pid }));
}
