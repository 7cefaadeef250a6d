/** One request of a load run, and how it ended. */
export interface Outcome {
	kind: "read" | "write";
	status: number;
	/** When it was sent, and when it ended, in ms since the run began. */
	sentAt: number;
	at: number;
	/** The id a successful write created. */
	id?: string;
}

/** How a load run goes. */
export interface LoadOptions {
	/** How long it runs at most. */
	seconds: number;
	/** How many loops send requests side by side, each the next after the last one ended. */
	concurrency: number;
	/** A request not answered in this time counts as status 0. */
	timeoutMs?: number;
	/**
	 * A pause in each loop after each answer: requests keep coming while the failure under test
	 * happens, without taking both cores from the rest of the test run.
	 */
	pauseMs?: number;
	/** Ends the run before `seconds` once this holds (asked after each answer). */
	until?: (outcomes: Outcome[], elapsedMs: number) => boolean;
}

/** Runs a load of `next()`'s requests. Bounded in time, only against this machine. */
export async function runLoad(
	options: LoadOptions,
	next: (i: number) => {
		kind: "read" | "write";
		send: (signal: AbortSignal) => Promise<{ status: number; id?: string }>;
	},
): Promise<Outcome[]> {
	const { seconds, concurrency, timeoutMs = 15_000, pauseMs = 0, until } = options;
	const started = Date.now();
	const deadline = started + seconds * 1000;
	const outcomes: Outcome[] = [];
	let counter = 0;
	let done = false;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (!done && Date.now() < deadline) {
				const request = next(counter++);
				const sentAt = Date.now() - started;
				const result = await request.send(AbortSignal.timeout(timeoutMs)).catch(() => ({ status: 0, id: undefined }));
				outcomes.push({ kind: request.kind, status: result.status, sentAt, at: Date.now() - started, id: result.id });
				if (until?.(outcomes, Date.now() - started)) done = true;
				if (pauseMs) await new Promise(resolve => setTimeout(resolve, pauseMs));
			}
		}),
	);
	return outcomes;
}

/** Counts of each status, for messages that say what happened. */
export function statusCounts(outcomes: Outcome[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const o of outcomes) counts[`${o.kind} ${o.status}`] = (counts[`${o.kind} ${o.status}`] ?? 0) + 1;
	return counts;
}

/** The answers of one phase of a failover run: by kind and status, and the slowest. */
export interface PhaseFigures {
	statuses: Record<string, number>;
	slowestMs: number;
}

/**
 * What a failover run shows: answers before the kill, while it settles (the first second) and after; how soon the
 * survivor answered.
 */
export interface FailoverFigures {
	before: PhaseFigures;
	during: PhaseFigures;
	after: PhaseFigures;
	/** From the kill to the first successful answer to a request sent after it. */
	firstSurvivorAnswerMs: number;
	failedReads: Outcome[];
	failedWrites: Outcome[];
}

export function failoverFigures(outcomes: Outcome[], killedAt: number, settleMs = 1000): FailoverFigures {
	const phase = (list: Outcome[]): PhaseFigures => ({
		statuses: statusCounts(list),
		slowestMs: Math.max(0, ...list.map(o => o.at - o.sentAt)),
	});
	const servedAfterKill = outcomes.filter(o => o.sentAt >= killedAt && o.status === 200).map(o => o.at - killedAt);
	return {
		before: phase(outcomes.filter(o => o.sentAt < killedAt)),
		during: phase(outcomes.filter(o => o.sentAt >= killedAt && o.sentAt < killedAt + settleMs)),
		after: phase(outcomes.filter(o => o.sentAt >= killedAt + settleMs)),
		firstSurvivorAnswerMs: servedAfterKill.length ? Math.min(...servedAfterKill) : Infinity,
		failedReads: outcomes.filter(o => o.kind === "read" && o.status !== 200),
		failedWrites: outcomes.filter(o => o.kind === "write" && o.status !== 200),
	};
}
