/**
 * The order suites start in: longest first, so that the longest (the distributed cluster, the crash
 * proofs) runs beside the many short ones instead of alone at the end. Jest's own order puts every
 * suite it has no time for first and, on a fresh clone (CI), goes by file size; and its time cache
 * keys results by path alone, so a suite run in both projects ("all" and "api-on-postgres") is timed
 * for one project only. Here a suite's time is its project's last run, else the same file's time in
 * the other project, else 60 s for a suite whose comment has a line `@long-running`, else a guess
 * from its size.
 */
const { readFileSync } = require("node:fs");
const Sequencer = require("@jest/test-sequencer").default;

class LongestFirst extends Sequencer {
	sort(tests) {
		const byPath = new Map();
		for (const test of tests) {
			const ms = this.time(test);
			if (ms) byPath.set(test.path, Math.max(ms, byPath.get(test.path) ?? 0));
		}
		const estimate = test => this.time(test) || byPath.get(test.path) || guess(test);
		const failed = test => (this.hasFailed(test) ? 1 : 0);
		return tests
			.map(test => ({ test, ms: estimate(test) }))
			.sort((a, b) => failed(b.test) - failed(a.test) || b.ms - a.ms)
			.map(({ test }) => test);
	}

	/** As Jest's, but a result is kept in the cache of the project that ran it. */
	cacheResults(tests, results) {
		const byProject = new Map(tests.map(test => [key(test.context.config.displayName, test.path), test]));
		for (const result of results.testResults) {
			const test = byProject.get(key(result.displayName, result.testFilePath));
			if (!test || result.skipped) continue;
			const runtime = result.perfStats.runtime ?? result.perfStats.end - result.perfStats.start;
			this._getCache(test)[result.testFilePath] = [result.numFailingTests > 0 ? FAIL : SUCCESS, runtime || 0];
		}
		super.cacheResults([], { testResults: [] });
	}
}

// Jest's marks in its time cache.
const FAIL = 0;
const SUCCESS = 1;
const key = (displayName, path) => `${displayName?.name ?? ""}\n${path}`;

function guess(test) {
	const source = readFileSync(test.path, "utf8");
	return /^\s*\*\s*@long-running\b/m.test(source) ? 60_000 : 500 + source.length / 10;
}

module.exports = LongestFirst;
