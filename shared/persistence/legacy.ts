import fs from "node:fs";
import path from "node:path";
import Datastore from "@seald-io/nedb";
import { SqlDatabase } from "./sql/database";

/** A document of the former embedded store (NeDB): `_id` is the record's GUID, timestamps epoch milliseconds. */
export type LegacyDoc = { _id: string } & Record<string, unknown>;

/** A field of a former document as text, undefined when absent. */
export function legacyText(value: unknown): string | undefined {
	// eslint-disable-next-line @typescript-eslint/no-base-to-string -- the former services stored these fields as scalars and read them with String()
	return value === undefined || value === null ? undefined : String(value);
}

/**
 * How a domain takes in its former NeDB collections: for each collection file (`<name>.db` in
 * DATA_DIR), a function that writes one document through the repository. It must be idempotent
 * (insert unless the key exists), so that an import cut off half-way is simply run again.
 */
export type LegacyImport<Repo> = Record<string, (repo: Repo, doc: LegacyDoc) => Promise<void>>;

/** The documents of a NeDB collection file as NeDB itself reads them (later lines win, deletions applied). */
export async function readLegacyCollection(file: string): Promise<LegacyDoc[]> {
	const store = new Datastore({ filename: file });
	await store.loadDatabaseAsync();
	return await store.findAsync<LegacyDoc>({});
}

/**
 * Imports a domain's NeDB collections into its repository, once: the import is marked done in
 * `plaza_imports` only after every document is written, so a crash in between repeats it at the
 * next start. The NeDB files are left in place (renaming nothing a user might want back).
 */
export async function importLegacyOnce<Repo>(
	db: SqlDatabase,
	dir: string,
	domain: string,
	repo: Repo,
	legacy: LegacyImport<Repo>,
): Promise<number> {
	await db.run(
		"CREATE TABLE IF NOT EXISTS plaza_imports (domain TEXT PRIMARY KEY, imported_time BIGINT NOT NULL, records INTEGER NOT NULL)",
	);
	if (await db.get("SELECT domain FROM plaza_imports WHERE domain = $1", [domain])) return 0;
	let records = 0;
	for (const [collection, write] of Object.entries(legacy)) {
		const file = path.join(dir, `${collection}.db`);
		if (!fs.existsSync(file)) continue;
		for (const doc of await readLegacyCollection(file)) {
			await write(repo, doc);
			records += 1;
		}
	}
	await db.run(
		"INSERT INTO plaza_imports (domain, imported_time, records) VALUES ($1, $2, $3) ON CONFLICT (domain) DO NOTHING",
		[domain, Date.now(), records],
	);
	return records;
}
