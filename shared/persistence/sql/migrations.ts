import { SqlDatabase, SqlDialect } from "./database";

/**
 * One step of a domain's schema. Versions start at 1 and only grow; a released step is never
 * edited, a later one changes what it made. `statements` may depend on the dialect (column types).
 */
export interface Migration {
	version: number;
	description: string;
	statements: (dialect: SqlDialect) => string[];
}

/**
 * Brings a domain's tables to its latest version, each step once, in one transaction under the
 * database's schema lock: processes that start together wait for one another, and a step that
 * fails leaves nothing half done.
 */
export async function migrate(db: SqlDatabase, domain: string, migrations: readonly Migration[]): Promise<number[]> {
	return db.withSchemaLock(async tx => {
		await tx.run(
			"CREATE TABLE IF NOT EXISTS plaza_migrations (domain TEXT NOT NULL, version INTEGER NOT NULL, description TEXT NOT NULL, applied_time BIGINT NOT NULL, PRIMARY KEY (domain, version))",
		);
		const done = new Set(
			(await tx.all<{ version: number }>("SELECT version FROM plaza_migrations WHERE domain = $1", [domain])).map(r =>
				Number(r.version),
			),
		);
		const applied: number[] = [];
		for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
			if (done.has(step.version)) continue;
			for (const sql of step.statements(db.dialect)) await tx.run(sql);
			await tx.run(
				"INSERT INTO plaza_migrations (domain, version, description, applied_time) VALUES ($1, $2, $3, $4)",
				[domain, step.version, step.description, Date.now()],
			);
			applied.push(step.version);
		}
		return applied;
	});
}
