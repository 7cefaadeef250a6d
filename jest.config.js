process.env.PASSWORD_HASH_COST ??= "test"; // cheap scrypt for the many test sign-ups (shared/passwords.ts); production uses OWASP cost
// Small PostgreSQL pools (the Plazas a test starts, in this process or as children): two test runs side by side
// start a dozen processes each, and ten connections apiece went past the server's max_connections (100).
process.env.DATABASE_POOL_SIZE ??= "4";

/**
 * Tests run TypeScript straight from the source; `npm test` type-checks and builds first. Every
 * suite runs once ("all"; the API suites on the in-memory store); the gateway-level API suites run
 * again on PostgreSQL ("api-on-postgres": a fresh database per Plaza started, see
 * test/support/postgres.ts) unless PLAZA_TEST_POSTGRES=off, and on MongoDB ("api-on-mongo") when
 * MONGO_URI names a server.
 */
const project = {
	testEnvironment: "node",
	// The whole repository, not just test/: coverage lists the production files no test loads (at 0 %).
	roots: ["<rootDir>"],
	testPathIgnorePatterns: ["/node_modules/", "<rootDir>/dist/"],
	transform: { "^.+\\.ts$": "ts-jest" },
	setupFiles: ["<rootDir>/scripts/child-coverage.setup.js"],
};
const apiSuites = ["**/*.api.test.ts", "**/servicestack-client.test.ts"];
// Bursts of real password hashes: what they measure (the hashing queue's admission) comes before any store.
const storeIndependent = ["<rootDir>/test/overload.api.test.ts"];

module.exports = {
	testTimeout: 30000,
	// Longest suites first, on a fresh clone too (see the file).
	testSequencer: "<rootDir>/test/support/sequencer.js",
	// Three workers on two cores: the suites mostly wait (on child processes, sockets, timers), and with
	// two the cores were 62 % busy; three brought the run from 190 s to 162 s here, with no failure.
	maxWorkers: 3,
	reporters: ["default", "<rootDir>/test/support/summary-reporter.js", "<rootDir>/scripts/child-coverage-reporter.js"],
	// Coverage: in CI (CI=true, as .ci/run is run) `npm test` measures it; locally `npm test -- --coverage`
	// does (it about doubles the run's time, so it is not on by default). V8's own counters, no
	// instrumentation; production code only, the built dist/main.js of process and cluster tests included
	// (see scripts/child-coverage-reporter.js); a one-screen summary; the run fails under 80 % of lines
	// (the bar; V8 counts lines generously), 85 % of branches or 90 % of functions.
	collectCoverage: process.env.CI === "true",
	coverageProvider: "v8",
	// The MongoDB code runs only against a MongoDB server (MONGO_URI): without one it is left out of the
	// figures rather than counted as untested (README, "How MongoDB is tested").
	collectCoverageFrom: [
		"{services,shared,gateway}/**/*.ts",
		"main.ts",
		"plaza.ts",
		"!**/*.d.ts",
		...(process.env.MONGO_URI ? [] : ["!**/*.mongo.ts", "!shared/persistence/mongo/**"]),
	],
	coverageReporters: ["text-summary"],
	coverageThreshold: { global: { lines: 80, branches: 85, functions: 90 } },
	projects: [
		{ ...project, displayName: "all", testMatch: ["<rootDir>/test/**/*.test.ts"] },
		// With a MongoDB server named (MONGO_URI), the same API suites run on it too (README, "Persistence").
		...(process.env.MONGO_URI
			? [
					{
						...project,
						displayName: "api-on-mongo",
						testMatch: apiSuites.map(glob => `<rootDir>/test/${glob}`),
						testPathIgnorePatterns: [...project.testPathIgnorePatterns, ...storeIndependent],
						setupFiles: [...project.setupFiles, "<rootDir>/test/support/on-mongo.setup.ts"],
					},
				]
			: []),
		...(process.env.PLAZA_TEST_POSTGRES === "off"
			? []
			: [
					{
						...project,
						displayName: "api-on-postgres",
						testMatch: apiSuites.map(glob => `<rootDir>/test/${glob}`),
						testPathIgnorePatterns: [...project.testPathIgnorePatterns, ...storeIndependent],
						setupFiles: [...project.setupFiles, "<rootDir>/test/support/on-postgres.setup.ts"],
					},
				]),
	],
};
