import { CrashEngine } from "../test/support/crash-engines";
import { CrashFigures, formatFigures, proveCrashes } from "../test/support/crash-prover";

/**
 * `npm run prove:crash -- --cycles N [--engine sqlite|postgres|mongo|cluster]`: the crash proof for long
 * runs (issue 17: at least 100 cycles), on one engine or, by default, on sqlite, postgres and cluster
 * in turn (mongo needs MONGO_URI: the server it makes its database on).
 * Exits 1 when any acknowledged write is missing, any cut-off write is half there or any count is off.
 */
function option(name: string): string | undefined {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
	const cycles = Number(option("cycles") ?? 100);
	const engines = (option("engine")?.split(",") ?? ["sqlite", "postgres", "cluster"]) as CrashEngine[];
	if (!Number.isInteger(cycles) || cycles < 1) throw new Error("--cycles takes a whole number of kill cycles");
	const unknown = engines.filter(e => !["sqlite", "postgres", "mongo", "cluster"].includes(e));
	if (unknown.length) throw new Error(`Unknown engine(s) ${unknown.join(", ")}: sqlite, postgres, mongo or cluster`);
	if (engines.includes("mongo") && !process.env.MONGO_URI)
		throw new Error("--engine mongo needs MONGO_URI (a MongoDB server to make a database on)");
	const results: CrashFigures[] = [];
	for (const engine of engines) {
		const figures = await proveCrashes({ engine, cycles, log: line => console.log(line) });
		results.push(figures);
		console.log(formatFigures(figures));
		for (const problem of figures.problems.slice(0, 50)) console.log(`  ${problem}`);
	}
	process.exitCode = results.some(f => f.problems.length || f.cutOff.broken) ? 1 : 0;
}

main().catch(err => {
	console.error(err);
	process.exitCode = 2;
});
