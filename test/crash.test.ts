import { postgresTestsOn } from "./support/postgres";
import { natsServerBinary } from "./support/nats";
import { mongoTestUri } from "./support/mongo";
import { CrashEngine } from "./support/crash-engines";
import { formatFigures, proveCrashes } from "./support/crash-prover";

/**
 * Issue 17, item 1: writes survive a kill -9 at any moment. Writers of every kind (posts with tags
 * and recipients, comments, connections, memberships, registrations with sessions, profile updates,
 * reservation conversions, media, work items) run under concurrent load; the victim is killed,
 * started again on the same store; then every acknowledged write is there intact, every cut-off
 * one whole or absent, every count equal to what it counts. A short run here; long runs:
 * `npm run prove:crash -- --cycles 100`.
 * @long-running (started first, see test/support/sequencer.js)
 */
// Two cycles per engine in npm test (a kill, a restart and the checks, twice); the provers run hundreds.
const cycles = Number(process.env.PLAZA_CRASH_CYCLES ?? 2);
const engines: Array<[CrashEngine, boolean]> = [
	["sqlite", true],
	["postgres", postgresTestsOn],
	["mongo", !!mongoTestUri],
	["cluster", postgresTestsOn && !!natsServerBinary],
];

describe("kill -9 under writes of every kind", () => {
	test.each(engines.filter(([, on]) => on).map(([engine]) => engine))(
		`%s: ${cycles} kill cycles, nothing acknowledged lost, nothing cut off half there`,
		async engine => {
			const figures = await proveCrashes({ engine, cycles });
			console.log(formatFigures(figures));
			expect(figures.problems).toEqual([]);
			expect(figures.cutOff.broken).toBe(0);
			// The load really ran: writes were acknowledged before the kills (a dozen in two cycles on a machine loaded by a
			// second run).
			expect(figures.acknowledgedChecked).toBeGreaterThan(5);
		},
		120_000,
	);
});
