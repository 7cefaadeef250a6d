// Jest gives each test file its own copy of process.env: this selects MongoDB (MONGO_URI's server) for one file only.
process.env.PLAZA_TEST_STORE = "mongo";
