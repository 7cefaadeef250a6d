/**
 * Jest setup file: when the run collects coverage (child-coverage-reporter.js then names a
 * directory), Node processes a test starts — the built dist/main.js of the process and cluster
 * tests — write V8's coverage there as they exit. Test code copies this process.env into the
 * children's environment (test/support/process.ts).
 */
if (process.env.PLAZA_CHILD_COVERAGE_DIR) process.env.NODE_V8_COVERAGE = process.env.PLAZA_CHILD_COVERAGE_DIR;
