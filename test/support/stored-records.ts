import { Db, Document, MongoClient } from "mongodb";
import { SqlDatabase, SqlValue } from "../../shared/persistence/sql/database";

/** A test's condition on stored records: column = value, or column among a list's values. */
export type Where = Record<string, string | number | readonly string[]>;

/**
 * A record as its store keeps it: SQL columns by name (booleans as 0/1); on MongoDB the document, its `_id` read as
 * `id`.
 */
export type StoredRecord = Record<string, unknown>;

/**
 * What a domain's store holds, read the same way on every engine, for tests that check what was
 * (not) written: a SQL database's tables, or the collections of the same names on MongoDB.
 */
export interface StoredRecords {
	find(table: string, where: Where): Promise<StoredRecord | undefined>;
	all(table: string, where?: Where): Promise<StoredRecord[]>;
	count(table: string, where?: Where): Promise<number>;
	/** Sets columns of the records `where` selects (a test making a state a crash would leave): how many. */
	update(table: string, where: Where, set: Record<string, SqlValue>): Promise<number>;
}

/** The records of a SQL database. */
export function sqlRecords(db: SqlDatabase): StoredRecords {
	const condition = (where: Where = {}) => {
		const params: SqlValue[] = [];
		const terms = Object.entries(where).map(([column, value]) => {
			if (typeof value === "string" || typeof value === "number") {
				params.push(value);
				return `${column} = $${params.length}`;
			}
			const placeholders = value.map(item => (params.push(item), `$${params.length}`));
			return placeholders.length ? `${column} IN (${placeholders.join(", ")})` : "1 = 0";
		});
		return { sql: terms.length ? ` WHERE ${terms.join(" AND ")}` : "", params };
	};
	return {
		find: (table, where) => {
			const { sql, params } = condition(where);
			return db.get<StoredRecord>(`SELECT * FROM ${table}${sql}`, params);
		},
		all: (table, where) => {
			const { sql, params } = condition(where);
			return db.all<StoredRecord>(`SELECT * FROM ${table}${sql}`, params);
		},
		count: async (table, where) => {
			const { sql, params } = condition(where);
			return Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}${sql}`, params))?.n);
		},
		update: (table, where, set) => {
			const { sql, params } = condition(where);
			const assignments = Object.keys(set).map((column, i) => `${column} = $${params.length + i + 1}`);
			return db.run(`UPDATE ${table} SET ${assignments.join(", ")}${sql}`, [...params, ...Object.values(set)]);
		},
	};
}

/** The records of a MongoDB database, through a client of the test's own. */
export function mongoRecords(uri: string): StoredRecords & { close(): Promise<void> } {
	const client = new MongoClient(uri);
	const db: Db = client.db();
	const filter = (where: Where = {}): Document =>
		Object.fromEntries(
			Object.entries(where).map(([column, value]) => [
				column === "id" ? "_id" : column,
				typeof value === "string" || typeof value === "number" ? value : { $in: [...value] },
			]),
		);
	const record = ({ _id, ...fields }: Document): StoredRecord => ({ id: _id as unknown, ...fields });
	return {
		find: async (table, where) => {
			const found = await db.collection(table).findOne(filter(where));
			return found ? record(found) : undefined;
		},
		all: async (table, where) => (await db.collection(table).find(filter(where)).toArray()).map(record),
		count: (table, where) => db.collection(table).countDocuments(filter(where)),
		update: async (table, where, set) =>
			(await db.collection(table).updateMany(filter(where), { $set: set })).modifiedCount,
		close: () => client.close(),
	};
}
