import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Migration, migrate } from "../../shared/persistence/sql/migrations";
import { PostgresDatabase } from "../../shared/persistence/sql/postgres";
import { SqliteDatabase } from "../../shared/persistence/sql/sqlite";
import { postgresTestsOn, testDatabase } from "./postgres";

/** A migrated database of one engine for a repository's contract suite, dropped by `close`. */
export interface EngineUnderTest {
	db: SqlDatabase;
	close(): Promise<void>;
}

type Open = (migrations: readonly Migration[], domain: string) => Promise<EngineUnderTest>;

/**
 * Every engine this machine has: SQLite in memory and in a file, and PostgreSQL (a fresh database)
 * unless PLAZA_TEST_POSTGRES=off. A contract suite runs `describe.each(engines)` over them.
 */
export const engines: Array<[string, Open]> = [
	["sqlite (memory)", async (migrations, domain) => migrated(new SqliteDatabase(undefined), migrations, domain, async () => undefined)],
	[
		"sqlite (file)",
		async (migrations, domain) => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-engine-"));
			return migrated(new SqliteDatabase(path.join(dir, `${domain}.sqlite`)), migrations, domain, async () => fs.rmSync(dir, { recursive: true, force: true }));
		},
	],
	...(postgresTestsOn
		? [
				[
					"postgres",
					async (migrations, domain) => {
						const database = testDatabase();
						await database.create();
						return migrated(new PostgresDatabase(database.url), migrations, domain, () => database.drop());
					},
				] as [string, Open],
			]
		: []),
];

async function migrated(db: SqlDatabase, migrations: readonly Migration[], domain: string, cleanUp: () => Promise<unknown>): Promise<EngineUnderTest> {
	await migrate(db, domain, migrations);
	return {
		db,
		close: async () => {
			await db.close();
			await cleanUp();
		},
	};
}

/** A repository on an engine, for the tests of one `describe`: opened and migrated before them, closed after. */
export interface RepositoryUnderTest<Repo> {
	readonly engine: EngineUnderTest;
	readonly repo: Repo;
}

export function onEngine<Repo>(open: Open, migrations: readonly Migration[], domain: string, create: (db: SqlDatabase) => Repo): RepositoryUnderTest<Repo> {
	const under = {} as { engine: EngineUnderTest; repo: Repo };
	beforeAll(async () => {
		under.engine = await open(migrations, domain);
		under.repo = create(under.engine.db);
	});
	afterAll(() => under.engine.close());
	return under;
}
