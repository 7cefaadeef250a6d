import { checkLedger, CrashVerdict } from "./crash-checks";
import { CrashEngine, startCrashTarget } from "./crash-engines";
import { emptyLedger, makeFixture, writer } from "./crash-writers";

export interface CrashFigures extends CrashVerdict {
	engine: CrashEngine;
	cycles: number;
	/** Writes Plaza acknowledged (200) during the cycles, of every kind. */
	acknowledgedWrites: number;
	seconds: number;
}

export interface CrashRun {
	engine: CrashEngine;
	cycles: number;
	/** Concurrent writers, each going through every kind of write. */
	writers?: number;
	/** The longest a cycle writes before its kill (the kill comes at a random moment up to it). */
	maxRunMs?: number;
	log?: (line: string) => void;
}

/**
 * Writes a cycle has acknowledged before its kill, at least (the kill then comes at the first moment after both this
 * and its random delay).
 */
const minAcksPerCycle = 5;

/**
 * The crash proof: a deployment on `engine`, writers of every kind under concurrent load, SIGKILL
 * at a random moment, restart on the same store, `cycles` times; then everything read back.
 */
export async function proveCrashes({
	engine,
	cycles,
	writers = 8,
	maxRunMs = 1500,
	log = () => undefined,
}: CrashRun): Promise<CrashFigures> {
	const started = Date.now();
	const target = await startCrashTarget(engine);
	try {
		const fixture = await makeFixture(target.api, writers);
		const ledger = emptyLedger();
		for (let cycle = 0; cycle < cycles; cycle++) {
			let running = true;
			const ackedBefore = countAcknowledged(ledger);
			const load = Array.from({ length: writers }, (_, w) =>
				writer(target.api, fixture, ledger, cycle, w, () => running),
			);
			await new Promise(resolve => setTimeout(resolve, 200 + Math.random() * (maxRunMs - 200)));
			// A kill before the load got going proves nothing (seen on a machine loaded by a second test run): at least a few
			// writes first.
			for (
				const giveUpAt = Date.now() + 10_000;
				countAcknowledged(ledger) < ackedBefore + minAcksPerCycle && Date.now() < giveUpAt;
			)
				await new Promise(resolve => setTimeout(resolve, 50));
			await target.kill();
			running = false;
			await Promise.all(load);
			await target.restart();
			if ((cycle + 1) % 10 === 0) log(`${engine}: ${cycle + 1}/${cycles} cycles`);
		}
		const verdict = await checkLedger(target.api, fixture, ledger);
		return {
			engine,
			cycles,
			acknowledgedWrites: countAcknowledged(ledger),
			...verdict,
			seconds: Math.round((Date.now() - started) / 1000),
		};
	} finally {
		await target.stop();
	}
}

function countAcknowledged(ledger: ReturnType<typeof emptyLedger>): number {
	const ids = [ledger.posts, ledger.comments, ledger.media, ledger.workItems].reduce(
		(n, list) => n + list.filter(e => e.id).length,
		0,
	);
	const flags = [...ledger.connections, ...ledger.members].filter(e => e.acked).length;
	const users = [...ledger.registrations, ...ledger.conversions].filter(e => e.userId).length;
	return ids + flags + users + [...ledger.profiles.values()].reduce((n, v) => n + v.acked, 0);
}

/** One line per engine, as the prover prints it and the report quotes it. */
export function formatFigures(f: CrashFigures): string {
	return `${f.engine}: ${f.cycles} kill cycles in ${f.seconds} s; ${f.acknowledgedWrites} writes acknowledged, ${f.acknowledgedChecked} acknowledged writes checked; cut-off writes judged: ${f.cutOff.whole} whole, ${f.cutOff.absent} absent, ${f.cutOff.repaired} repaired by a retry, ${f.cutOff.broken} broken; problems: ${f.problems.length}`;
}
