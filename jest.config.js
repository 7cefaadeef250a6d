/**
 * Tests run TypeScript straight from the source; `npm test` type-checks and builds first. The
 * gateway-level API suites run twice: on the in-memory store, and on PostgreSQL (a fresh database
 * per Plaza started, see test/support/postgres.ts) unless PLAZA_TEST_POSTGRES=off.
 */
const project = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": "ts-jest" },
};
const apiSuites = ["**/*.api.test.ts", "**/servicestack-client.test.ts"];

module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
  projects: [
    { ...project, displayName: "memory", testMatch: ["**/*.test.ts"] },
    ...(process.env.PLAZA_TEST_POSTGRES === "off"
      ? []
      : [{ ...project, displayName: "postgres", testMatch: apiSuites, setupFiles: ["<rootDir>/test/support/on-postgres.setup.ts"] }]),
  ],
};
