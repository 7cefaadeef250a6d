import { Collection, Db, Document, MongoClient, MongoClientOptions, OptionalUnlessRequiredId } from "mongodb";
import { isDuplicateKey } from "./errors";

/** A domain's MongoDB database as its repository sees it. */
export class MongoStore {
	constructor(readonly db: Db) {}

	collection<T extends Document>(name: string): Collection<T> {
		return this.db.collection<T>(name);
	}

	/** Inserts `doc` unless a document with one of its unique keys is there: whether this call inserted it. */
	async insertOnce<T extends Document>(collection: Collection<T>, doc: OptionalUnlessRequiredId<T>): Promise<boolean> {
		try {
			await collection.insertOne(doc);
			return true;
		} catch (err) {
			if (isDuplicateKey(err)) return false;
			throw err;
		}
	}
}

interface Shared {
	client: MongoClient;
	users: number;
}

/** One client (a pool of its own) per URI and process: every domain of the process shares it. */
const clients = new Map<string, Shared>();

/** The database named in the URI's path, or "plaza". */
export function databaseNameOf(uri: string): string {
	const name = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri)?.[1];
	return name ? decodeURIComponent(name) : "plaza";
}

/** Majority and journal acknowledgement, unless the URI chooses its own write concern. */
function durableUnlessTold(uri: string): MongoClientOptions {
	return /[?&](w|journal|wtimeoutMS)=/i.test(uri) ? {} : { w: "majority", journal: true };
}

/** The deployment's MongoDB database; the client connects at its first command. Give it back with `closeMongo`. */
export function openMongo(uri: string): Db {
	let shared = clients.get(uri);
	if (!shared) {
		// Acknowledged means durable (PRODUCT.md): a write is answered once a majority has it in its journal
		// (on a standalone server, once it is in the journal). Options in the URI (w=, journal=) take precedence.
		shared = { client: new MongoClient(uri, durableUnlessTold(uri)), users: 0 };
		clients.set(uri, shared);
	}
	shared.users += 1;
	return shared.client.db(databaseNameOf(uri));
}

/** The last domain to give a client back closes it. */
export async function closeMongo(uri: string): Promise<void> {
	const shared = clients.get(uri);
	if (!shared || --shared.users > 0) return;
	clients.delete(uri);
	await shared.client.close();
}
