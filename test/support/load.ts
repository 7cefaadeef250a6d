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

/**
 * Runs `concurrency` loops of requests for `seconds`, each loop sending `next()`'s request after the
 * last one ended; a request not answered in `timeoutMs` counts as status 0. Bounded in time, only
 * against this machine.
 */
export async function runLoad(seconds: number, concurrency: number, next: (i: number) => { kind: "read" | "write"; send: (signal: AbortSignal) => Promise<{ status: number; id?: string }> }, timeoutMs = 15_000): Promise<Outcome[]> {
	const started = Date.now();
	const deadline = started + seconds * 1000;
	const outcomes: Outcome[] = [];
	let counter = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (Date.now() < deadline) {
				const request = next(counter++);
				const sentAt = Date.now() - started;
				const result = await request.send(AbortSignal.timeout(timeoutMs)).catch(() => ({ status: 0, id: undefined }));
				outcomes.push({ kind: request.kind, status: result.status, sentAt, at: Date.now() - started, id: result.id });
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

/** What a failover run shows: answers before the kill, while it settles (the first second) and after; how soon the survivor answered. */
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
	const phase = (list: Outcome[]): PhaseFigures => ({ statuses: statusCounts(list), slowestMs: Math.max(0, ...list.map(o => o.at - o.sentAt)) });
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
