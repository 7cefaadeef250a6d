/**
 * Test-only preload for a child Plaza process (node --require): PLAZA_TEST_DIE_AT="<compiled
 * module>#<Class>.<method>" kills the process with SIGKILL when that method is first called, the
 * moment a crash is to be proved at; PLAZA_TEST_CLOCK_AHEAD_MS runs Date.now that far ahead (a
 * restart "later", past a lease).
 */
const dieAt = process.env.PLAZA_TEST_DIE_AT;
if (dieAt) {
	const [file, member] = dieAt.split("#");
	const [owner, method] = member.split(".");
	require(file)[owner].prototype[method] = () => {
		process.kill(process.pid, "SIGKILL");
		return new Promise(() => undefined);
	};
}
const ahead = Number(process.env.PLAZA_TEST_CLOCK_AHEAD_MS || 0);
if (ahead) {
	const now = Date.now;
	Date.now = () => now() + ahead;
}
