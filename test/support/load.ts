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
export async function runLoad(
	seconds: number,
	concurrency: number,
	next: (i: number) => { kind: "read" | "write"; send: (signal: AbortSignal) => Promise<{ status: number; id?: string }> },
	timeoutMs = 15_000,
): Promise<Outcome[]> {
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
