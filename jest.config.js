/** Tests run TypeScript straight from the source; `npm test` type-checks and builds first. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": "ts-jest" },
  testTimeout: 30000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
