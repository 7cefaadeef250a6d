import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { onServer, postgresTestsOn, terminateConnections, testDatabase } from "./support/postgres";
import { startPlaza, TestPlaza } from "./support/plaza";

const describeOnPostgres = postgresTestsOn ? describe : describe.skip;

describeOnPostgres("PostgreSQL: the server goes away and comes back; text it cannot keep", () => {
	let plaza: TestPlaza;
	let plazaDatabase: ReturnType<typeof testDatabase>;

	beforeAll(async () => {
		plazaDatabase = testDatabase();
		await plazaDatabase.create();
		plaza = await startPlaza({ services: ["posts"], store: { kind: "postgres", url: plazaDatabase.url } });
	});
	afterAll(async () => {
		await plaza.stop();
		await plazaDatabase.drop();
	});

	test("every connection of the pool cut (as by a restart): reads and writes are served again at once", async () => {
		const user = await plaza.signUp();
		for (let round = 0; round < 3; round++) {
			expect(await terminateConnections(plazaDatabase.name)).toBeGreaterThan(0);
			expect((await user.http("GET", `/Users/${user.userId}`)).status).toBe(200);
			expect(
				(await user.http("PUT", `/Users/${user.userId}`, { FirstName: `Round${round}`, LastName: "Cut" })).status,
			).toBe(200);
		}
		expect((await user.http("GET", `/Users/${user.userId}`)).body).toMatchObject({ FirstName: "Round2" });
	});

	test("text holding U+0000, which PostgreSQL cannot keep, is a 400 and writes nothing", async () => {
		const user = await plaza.signUp();
		const before = await plaza.count("posts", "posts");
		const reply = await user.http("POST", "/Posts", { AuthorId: user.userId, Content: "a\u0000b" });
		expect(reply.status).toBe(400);
		expect(await plaza.count("posts", "posts")).toBe(before);
	});

	test("a server that takes no more connections: 503 ServiceUnavailable (not a 500), then served again", async () => {
		// A role of its own with a connection limit (superusers have none), owner of a database of its own.
		const role = `plaza_limited_${plazaDatabase.name.slice(-8)}`;
		const database = testDatabase();
		await database.create();
		await onServer(async client => {
			await client.query(`CREATE ROLE ${role} LOGIN`);
			await client.query(`ALTER DATABASE ${database.name} OWNER TO ${role}`);
		});
		const url = new URL(database.url);
		url.username = role;
		const limited = await startPlaza({
			services: ["posts"],
			store: { kind: "postgres", url: url.toString(), poolSize: 4 },
		});
		try {
			const user = await limited.signUp();
			await onServer(client => client.query(`ALTER ROLE ${role} CONNECTION LIMIT 0`));
			await terminateConnections(database.name);
			const refused = await user.http("GET", `/Users/${user.userId}`);
			expect([refused.status, refused.body]).toEqual([
				503,
				expect.objectContaining({ ResponseStatus: expect.objectContaining({ ErrorCode: "ServiceUnavailable" }) }),
			]);
			await onServer(client => client.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`));
			expect((await user.http("GET", `/Users/${user.userId}`)).status).toBe(200);
		} finally {
			await limited.stop();
			await database.drop();
			await onServer(client => client.query(`DROP ROLE IF EXISTS ${role}`));
		}
	});

	// Restarting the server disturbs everything else using it, so only on request: PLAZA_TEST_POSTGRES_RESTART=1.
	const cluster = fs.existsSync("/etc/postgresql") ? fs.readdirSync("/etc/postgresql")[0] : undefined;
	(process.env.PLAZA_TEST_POSTGRES_RESTART === "1" && cluster ? test : test.skip)(
		"a real restart of the server: requests fail with 503 while it is down, then are served again",
		async () => {
			const user = await plaza.signUp();
			const ctl = (action: string) =>
				execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", cluster!, "main", action], { stdio: "pipe" });
			try {
				ctl("stop");
				const down = await user.http("GET", `/Users/${user.userId}`);
				expect(down.status).toBe(503);
				expect(down.body).toMatchObject({ ResponseStatus: { ErrorCode: "ServiceUnavailable" } });
			} finally {
				ctl("start");
			}
			expect((await user.http("GET", `/Users/${user.userId}`)).status).toBe(200);
		},
		60_000,
	);
});
