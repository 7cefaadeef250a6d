import { createBlobStore } from "../shared/persistence/blobs";
import { MongoClient } from "mongodb";
import { MongoBlobs, mongoBlobBucket } from "../shared/persistence/blobs.mongo";
import { newGuid } from "../shared/wire/guid";
import { mongoTestUri, testMongoDatabase } from "./support/mongo";

/** Without a MongoDB server (MONGO_URI) this is skipped. */
const describeOnMongo = mongoTestUri ? describe : describe.skip;

describeOnMongo("the blob store on MongoDB (GridFS)", () => {
	const database = mongoTestUri ? testMongoDatabase() : undefined;
	const blobs = new MongoBlobs(database?.uri ?? "");

	beforeAll(() => blobs.open());
	afterAll(async () => {
		await blobs.close();
		await database?.drop();
	});

	test("puts, replaces, gets and removes bytes; what is not there is null", async () => {
		const id = newGuid();
		expect(await blobs.get(id)).toBeNull();
		await blobs.put(id, Buffer.from([1, 2, 3]));
		expect(await blobs.get(id)).toEqual(Buffer.from([1, 2, 3]));
		await blobs.put(id, Buffer.from([4, 5]));
		expect(await blobs.get(id)).toEqual(Buffer.from([4, 5]));
		await blobs.remove(id);
		expect(await blobs.get(id)).toBeNull();
		await blobs.remove(id);
	});

	test("bytes larger than a GridFS chunk come back whole; of puts at once one is read; a removed blob leaves no chunk", async () => {
		const id = newGuid();
		const large = Buffer.alloc(300_000, 7);
		await blobs.put(id, large);
		expect(await blobs.get(id)).toEqual(large);
		const versions = Array.from({ length: 5 }, (_, i) => Buffer.from([i, i, i]));
		await Promise.all(versions.map(bytes => blobs.put(id, bytes)));
		expect(versions).toContainEqual(await blobs.get(id));
		await blobs.remove(id);
		expect(await blobs.get(id)).toBeNull();
		const client = new MongoClient(database!.uri);
		try {
			expect(await client.db().collection(`${mongoBlobBucket}.files`).countDocuments({ filename: id })).toBe(0);
			expect(await client.db().collection(`${mongoBlobBucket}.chunks`).countDocuments({})).toBe(0);
		} finally {
			await client.close();
		}
	});

	test("the store of a MONGO_URI deployment is GridFS on that database", async () => {
		const store = createBlobStore({ kind: "mongo", uri: database!.uri }, undefined);
		expect(store).toBeInstanceOf(MongoBlobs);
		await store.open();
		try {
			const id = newGuid();
			await blobs.put(id, Buffer.from([9]));
			expect(await store.get(id)).toEqual(Buffer.from([9]));
		} finally {
			await store.close();
		}
	});
});
