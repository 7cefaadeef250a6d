process.env.PASSWORD_HASH_COST ??= "test"; // cheap scrypt for the many test sign-ups (shared/passwords.ts); production uses OWASP cost

/**
 * Tests run TypeScript straight from the source; `npm test` type-checks and builds first. Every
 * suite runs once ("all"; the API suites on the in-memory store); the gateway-level API suites run
 * again on PostgreSQL ("api-on-postgres": a fresh database per Plaza started, see
 * test/support/postgres.ts) unless PLAZA_TEST_POSTGRES=off.
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
    { ...project, displayName: "all", testMatch: ["**/*.test.ts"] },
    ...(process.env.PLAZA_TEST_POSTGRES === "off"
      ? []
      : [{ ...project, displayName: "api-on-postgres", testMatch: apiSuites, setupFiles: ["<rootDir>/test/support/on-postgres.setup.ts"] }]),
  ],
};
