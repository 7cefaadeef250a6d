import { Service, ServiceSchema } from "moleculer";
import { StoreConfig } from "../config";
import { SqlDatabase } from "./sql/database";
import { Migration, migrate } from "./sql/migrations";
import { closeDatabase, openDatabase } from "./sql/open";
import { importLegacyOnce, LegacyImport } from "./legacy";
import { Domain } from "../domains";
import { closeMongo, MongoStore, openMongo } from "./mongo/store";
import { migrateMongo, MongoMigration } from "./mongo/migrations";
import { periodicMixin } from "./periodic.mixin";
import { IdempotencyKeys } from "../idempotency/keys";
import { idempotencyKeysMigrations, keysDomain, SqlIdempotencyKeys } from "../idempotency/keys.sql";
import { idempotencyKeysMongoMigrations, MongoIdempotencyKeys } from "../idempotency/keys.mongo";
import { keyedWrites } from "../idempotency/writes";

/** A domain's repository on MongoDB: its collections' versioned indexes, and the repository. */
export interface MongoRepositoryOptions<Repo> {
	migrations: readonly MongoMigration[];
	create: (store: MongoStore) => Repo;
}

export interface RepositoryOptions<Repo> {
	/** The domain's name: its SQLite file, its migrations' key. */
	domain: Domain;
	migrations: readonly Migration[];
	create: (db: SqlDatabase) => Repo;
	/** The same repository on MongoDB (MONGO_URI). */
	mongo: MongoRepositoryOptions<Repo>;
	/** How the domain takes in what the former embedded store (NeDB files in DATA_DIR) held. */
	legacy?: LegacyImport<Repo>;
}

/** What a service that mixes in a repository gets on `this`. */
export interface WithRepository<Repo> {
	repo: Repo;
	/** The SQL database (undefined on MongoDB). */
	db?: SqlDatabase;
	/** The Idempotency-Keys of the writes this service runs, in the same database as its records (see runOnce). */
	idempotencyKeys?: IdempotencyKeys;
}

const retryConnectMs = 1000;

const purgeKeysEveryMs = 60 * 1000;

/**
 * A domain's persistence for its service: the database opened on create, its schema migrated on
 * start (retrying while the server is out of reach), the former embedded store imported once, and
 * the database given back on stop. The service talks to `this.repo` only. Beside its records, the
 * domain keeps its writes' idempotency keys, so that a write and its key's claim commit together.
 */
export function repositoryMixin<Repo>(store: StoreConfig, options: RepositoryOptions<Repo>): Partial<ServiceSchema> {
	type This = Service & WithRepository<Repo> & { migrateSchema: () => Promise<number[]> };
	return {
		mixins: [
			periodicMixin<Repo, WithRepository<Repo>>(
				purgeKeysEveryMs,
				"Purging expired idempotency keys",
				async (_repo, service) => service.idempotencyKeys?.removeExpired(Date.now()),
			),
		],

		created(this: Service) {
			const self = this as This;
			if (store.kind === "mongo") {
				const mongo = options.mongo;
				const db = openMongo(store.uri);
				self.repo = mongo.create(new MongoStore(db));
				self.idempotencyKeys = new MongoIdempotencyKeys(new MongoStore(db));
				self.migrateSchema = async () => {
					await migrateMongo(db, keysDomain, idempotencyKeysMongoMigrations);
					return migrateMongo(db, options.domain, mongo.migrations);
				};
				return;
			}
			const db = openDatabase(store, options.domain, message => this.logger.warn(message));
			// Writes mark an Idempotency-Key's claim (docs/architecture.md, Keyed writes).
			const sql = keyedWrites(db);
			self.db = sql;
			self.repo = options.create(sql);
			self.idempotencyKeys = new SqlIdempotencyKeys(db);
			self.migrateSchema = async () => {
				await migrate(db, keysDomain, idempotencyKeysMigrations);
				return migrate(sql, options.domain, options.migrations);
			};
		},

		async started(this: Service) {
			const self = this as This;
			for (;;) {
				try {
					const applied = await self.migrateSchema();
					if (applied.length)
						this.logger.info(`Schema of ${options.domain} migrated to version ${applied[applied.length - 1]}`);
					break;
				} catch (err) {
					if (store.kind !== "postgres" && store.kind !== "mongo") throw err;
					this.logger.error(`Migrating the ${options.domain} schema failed; retrying:`, err);
					await new Promise(resolve => setTimeout(resolve, retryConnectMs));
				}
			}
			if (store.kind === "sqlite" && options.legacy && self.db) {
				const imported = await importLegacyOnce(self.db, store.dir, options.domain, self.repo, options.legacy);
				if (imported)
					this.logger.info(`Imported ${imported} records of ${options.domain} from the former embedded store`);
			}
		},

		async stopped(this: Service) {
			const self = this as This;
			if (store.kind === "mongo") return closeMongo(store.uri);
			if (self.db) await closeDatabase(store, self.db);
		},
	};
}

/** A repository class's public methods: what the same domain's repository on another engine implements. */
export type RepositoryContract<T> = Pick<T, keyof T>;
