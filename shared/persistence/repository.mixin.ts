import { Service, ServiceSchema } from "moleculer";
import { StoreConfig } from "../config";
import { SqlDatabase } from "./sql/database";
import { Migration, migrate } from "./sql/migrations";
import { closeDatabase, openDatabase } from "./sql/open";
import { importLegacyOnce, LegacyImport } from "./legacy";
import { announcedDomains, announcingChanges } from "../cache/domain-changes";

export interface RepositoryOptions<Repo> {
	/** The domain's name: its SQLite file, its migrations' key. */
	domain: string;
	migrations: readonly Migration[];
	create: (db: SqlDatabase) => Repo;
	/** How the domain takes in what the former embedded store (NeDB files in DATA_DIR) held. */
	legacy?: LegacyImport<Repo>;
}

/** What a service that mixes in a repository gets on `this`. */
export interface WithRepository<Repo> {
	repo: Repo;
	db: SqlDatabase;
}

const retryConnectMs = 1000;

/**
 * A domain's persistence for its service: the database opened on create, its schema migrated on
 * start (retrying while the server is out of reach), the former embedded store imported once, and
 * the database given back on stop. The service talks to `this.repo` only.
 */
export function repositoryMixin<Repo>(store: StoreConfig, options: RepositoryOptions<Repo>): Partial<ServiceSchema> {
	type This = Service & WithRepository<Repo>;
	return {
		created(this: Service) {
			const self = this as This;
			const db = openDatabase(store, options.domain, message => this.logger.warn(message));
			self.db = announcedDomains.has(options.domain) ? announcingChanges(db, options.domain, this.broker) : db;
			self.repo = options.create(self.db);
		},

		async started(this: Service) {
			const self = this as This;
			for (;;) {
				try {
					const applied = await migrate(self.db, options.domain, options.migrations);
					if (applied.length) this.logger.info(`Schema of ${options.domain} migrated to version ${applied[applied.length - 1]}`);
					break;
				} catch (err) {
					if (store.kind !== "postgres") throw err;
					this.logger.error(`Migrating the ${options.domain} schema failed; retrying:`, err);
					await new Promise(resolve => setTimeout(resolve, retryConnectMs));
				}
			}
			if (store.kind === "sqlite" && options.legacy) {
				const imported = await importLegacyOnce(self.db, store.dir, options.domain, self.repo, options.legacy);
				if (imported) this.logger.info(`Imported ${imported} records of ${options.domain} from the former embedded store`);
			}
		},

		async stopped(this: Service) {
			await closeDatabase(store, (this as This).db);
		},
	};
}
