// Jest gives each test file its own copy of process.env: this selects PostgreSQL for one file only.
process.env.PLAZA_TEST_STORE = "postgres";
