import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Migration, migrate } from "../../shared/persistence/sql/migrations";
import { PostgresDatabase } from "../../shared/persistence/sql/postgres";
import { SqliteDatabase } from "../../shared/persistence/sql/sqlite";
import { postgresTestsOn, testDatabase } from "./postgres";
import { mongoTestUri, openTestMongo } from "./mongo";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { migrateMongo } from "../../shared/persistence/mongo/migrations";
import { MongoRepositoryOptions } from "../../shared/persistence/repository.mixin";

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
	[
		"sqlite (memory)",
		async (migrations, domain) => migrated(new SqliteDatabase(undefined), migrations, domain, async () => undefined),
	],
	[
		"sqlite (file)",
		async (migrations, domain) => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-engine-"));
			return migrated(new SqliteDatabase(path.join(dir, `${domain}.sqlite`)), migrations, domain, async () =>
				fs.rmSync(dir, { recursive: true, force: true }),
			);
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

async function migrated(
	db: SqlDatabase,
	migrations: readonly Migration[],
	domain: string,
	cleanUp: () => Promise<unknown>,
): Promise<EngineUnderTest> {
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

export function onEngine<Repo>(
	open: Open,
	migrations: readonly Migration[],
	domain: string,
	create: (db: SqlDatabase) => Repo,
): RepositoryUnderTest<Repo> {
	const under = {} as { engine: EngineUnderTest; repo: Repo };
	beforeAll(async () => {
		under.engine = await open(migrations, domain);
		under.repo = create(under.engine.db);
	});
	afterAll(() => under.engine.close());
	return under;
}

/** A repository's implementations on SQL and on MongoDB, with their schemas. */
export interface Implementations<Repo> {
	domain: string;
	sql: { migrations: readonly Migration[]; create: (db: SqlDatabase) => Repo };
	mongo: MongoRepositoryOptions<Repo>;
}

/** A repository on one engine, for the tests of one `describe`. */
export interface StoreUnderTest<Repo> {
	readonly repo: Repo;
	/** The SQL database, on the SQL engines (what only they do: importing the former store). */
	readonly sql?: SqlDatabase;
	/** How many records of `table` (a collection on MongoDB, whose `_id` is the column `id`) have these values. */
	count(table: string, where: Record<string, string | number>): Promise<number>;
}

/** Every engine a contract suite runs on: those of `engines`, and MongoDB when MONGO_URI is set. */
export const storeEngines: string[] = [...engines.map(([name]) => name), ...(mongoTestUri ? ["mongodb"] : [])];

/**
 * The repository of `impl` on the engine named `engine` (one of `storeEngines`): opened and migrated before the tests,
 * closed after.
 */
export function onStore<Repo>(engine: string, impl: Implementations<Repo>): StoreUnderTest<Repo> {
	const under = {} as {
		repo: Repo;
		sql?: SqlDatabase;
		count: StoreUnderTest<Repo>["count"];
		close: () => Promise<void>;
	};
	beforeAll(async () => {
		const sqlOpen = engines.find(([name]) => name === engine)?.[1];
		if (sqlOpen) {
			const opened = await sqlOpen(impl.sql.migrations, impl.domain);
			const columns = (where: Record<string, string | number>) =>
				Object.keys(where).map((column, i) => `${column} = $${i + 1}`);
			Object.assign(under, {
				repo: impl.sql.create(opened.db),
				sql: opened.db,
				count: async (table: string, where: Record<string, string | number>) =>
					Number(
						(
							await opened.db.get<{ n: number }>(
								`SELECT COUNT(*) AS n FROM ${table}${Object.keys(where).length ? ` WHERE ${columns(where).join(" AND ")}` : ""}`,
								Object.values(where),
							)
						)?.n,
					),
				close: () => opened.close(),
			});
			return;
		}
		const mongo = openTestMongo();
		const db = mongo.db;
		await migrateMongo(db, impl.domain, impl.mongo.migrations);
		Object.assign(under, {
			repo: impl.mongo.create(new MongoStore(db)),
			count: (table: string, where: Record<string, string | number>) =>
				db
					.collection(table)
					.countDocuments(
						Object.fromEntries(Object.entries(where).map(([field, value]) => [field === "id" ? "_id" : field, value])),
					),
			close: () => mongo.close(),
		});
	});
	afterAll(() => under.close());
	return under;
}
