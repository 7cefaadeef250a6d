import { randomBytes } from "node:crypto";
import { Db, MongoClient } from "mongodb";

/**
 * The MongoDB server the tests also run on when MONGO_URI names one: the contract suites, the
 * API suites (the "api-on-mongo" project) and the mixed cluster. Without it they are skipped: no
 * MongoDB server can be installed on the machines CI runs on.
 */
export const mongoTestUri = process.env.MONGO_URI || undefined;

/** `uri` with `name` as its database (the path). */
const withDatabase = (uri: string, name: string) =>
	uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)\/?[^?]*/, `$1/${name}`);

export interface TestMongoDatabase {
	/** The connection string of this database. */
	uri: string;
	drop(): Promise<void>;
}

/** A database of one suite or Plaza alone (MongoDB makes it at the first write), dropped by `drop`. */
export function testMongoDatabase(): TestMongoDatabase {
	const name = `plaza_test_${randomBytes(6).toString("hex")}`;
	const server = mongoTestUri!;
	return {
		uri: withDatabase(server, name),
		drop: async () => {
			const client = new MongoClient(server);
			try {
				await client.db(name).dropDatabase();
			} finally {
				await client.close();
			}
		},
	};
}

/** A test's own database and a client to read and write it: `close` drops the database and closes the client. */
export function openTestMongo(): { uri: string; db: Db; close(): Promise<void> } {
	const database = testMongoDatabase();
	const client = new MongoClient(database.uri);
	return {
		uri: database.uri,
		db: client.db(),
		close: async () => {
			await client.close();
			await database.drop();
		},
	};
}
