import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ServiceBroker } from "moleculer";
import { StoreConfig } from "../shared/config";
import { storeMixin } from "../shared/persistence/store.mixin";
import { Doc, StoreAdapter } from "../shared/persistence/store";
import { PlazaError } from "../shared/errors";
import { postgresTestsOn, testDatabase } from "./support/postgres";

/**
 * The adapter contract: what every store must do for Plaza's services. It runs on every store this
 * machine has (NeDB in memory and on files, PostgreSQL on a database of its own) and on MongoDB
 * when MONGO_URI is set.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-contract-"));
const database = postgresTestsOn ? testDatabase() : undefined;
const stores: Array<[string, StoreConfig]> = [
	["NeDB in memory", { kind: "memory" }],
	["NeDB files", { kind: "sqlite", dir: tmp }],
];
if (database) stores.push(["PostgreSQL", { kind: "postgres", url: database.url }]);
if (process.env.MONGO_URI) stores.push(["MongoDB", { kind: "mongo", uri: process.env.MONGO_URI }]);

beforeAll(() => database?.create());
afterAll(async () => {
	fs.rmSync(tmp, { recursive: true, force: true });
	await database?.drop();
});

describe.each(stores)("store contract on %s", (_name, store) => {
	let broker: ServiceBroker;
	let adapter: StoreAdapter;
	const collection = `contract_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;

	beforeAll(async () => {
		broker = new ServiceBroker({ logger: false });
		const service = broker.createService({
			name: "contract",
			mixins: [storeMixin(store, collection, [{ field: "CreatedTime" }, { field: "Key", unique: true, sparse: true, reportAs: "Name" }])],
		});
		await broker.start();
		adapter = (service as unknown as { adapter: StoreAdapter }).adapter;
	});
	beforeEach(() => adapter.clear());
	afterAll(() => broker.stop());

	const seed = async (n: number) => {
		const docs: Doc[] = Array.from({ length: n }, (_, i) => ({ _id: `id${String(i).padStart(3, "0")}`, N: i, Group: i % 3, CreatedTime: 1000 + (i % 4), Tags: [`t${i % 2}`, "all"] }));
		for (const doc of docs) await adapter.insert(doc);
		return docs;
	};

	test("insert returns the document and find by id returns it again", async () => {
		const doc = { _id: "a1", Name: "Ann", Key: "ann", CreatedTime: 5 };
		expect(await adapter.insert(doc)).toMatchObject(doc);
		expect(await adapter.findById("a1")).toMatchObject(doc);
		expect(await adapter.findById("missing")).toBeNull();
		expect((await adapter.findByIds(["a1", "missing"])).map(d => d._id)).toEqual(["a1"]);
	});

	test("find by query: equality, $in, $ne, ranges, array membership, $or", async () => {
		await seed(12);
		const ids = async (query: Record<string, unknown>) => (await adapter.find({ query, sort: ["_id"] })).map(d => d._id);
		expect(await ids({ Group: 1 })).toEqual(["id001", "id004", "id007", "id010"]);
		expect(await ids({ N: { $in: [2, 5, 99] } })).toEqual(["id002", "id005"]);
		expect((await ids({ Group: { $ne: 0 } })).length).toBe(8);
		expect(await ids({ N: { $gte: 3, $lt: 6 } })).toEqual(["id003", "id004", "id005"]);
		expect((await ids({ Tags: "t1" })).length).toBe(6);
		expect(await ids({ $or: [{ N: 0 }, { N: 11 }] })).toEqual(["id000", "id011"]);
		expect((await adapter.findOne({ N: 7 }))?._id).toBe("id007");
		expect(await adapter.findOne({ N: 700 })).toBeNull();
	});

	test("more operators: $nin, $exists, $and, $in on a list, missing fields under $ne and $nin", async () => {
		await seed(12);
		await adapter.insert({ _id: "x1", N: 100, Extra: "yes", Tags: [] });
		await adapter.insert({ _id: "x2", N: 101, Extra: null });
		const ids = async (query: Record<string, unknown>) => (await adapter.find({ query, sort: ["_id"] })).map(d => d._id);
		expect((await ids({ N: { $nin: [0, 1, 2] } })).length).toBe(11);
		expect(await ids({ Extra: { $exists: true } })).toEqual(["x1", "x2"]);
		expect((await ids({ Extra: { $exists: false } })).length).toBe(12);
		expect(await ids({ $and: [{ Group: 1 }, { N: { $gt: 4 } }] })).toEqual(["id007", "id010"]);
		expect((await ids({ Tags: { $in: ["t0", "nothing"] } })).length).toBe(6);
		expect(await ids({ Group: { $ne: 0 }, N: { $gte: 10 } })).toEqual(["id010", "id011", "x1", "x2"]);
		expect(await ids({ Group: { $nin: [0, 1, 2] } })).toEqual(["x1", "x2"]);
		expect(await ids({ _id: { $in: ["id001", "x2", "nobody"] } })).toEqual(["id001", "x2"]);
		expect(await ids({ $or: [{ Extra: "yes" }, { Group: 2, N: { $lt: 3 } }] })).toEqual(["id002", "x1"]);
	});

	test("ranges compare values of the bound's type only; numbers order as numbers", async () => {
		for (const [i, V] of [5, "7", 10, true, 2.5, "12"].entries()) await adapter.insert({ _id: `v${i}`, V });
		const values = async (query: Record<string, unknown>) => (await adapter.find({ query, sort: ["V"] })).map(d => d.V);
		expect(await values({ V: { $gt: 4 } })).toEqual([5, 10]);
		expect(await values({ V: { $lte: 5 } })).toEqual([2.5, 5]);
		expect(await values({ V: { $gte: "10" } })).toEqual(["12", "7"]);
	});

	test("sort puts documents lacking the field first, and last when descending", async () => {
		await adapter.insert({ _id: "m1", Rank: 2 });
		await adapter.insert({ _id: "m2" });
		await adapter.insert({ _id: "m3", Rank: 1 });
		expect((await adapter.find({ query: {}, sort: ["Rank", "_id"] })).map(d => d._id)).toEqual(["m2", "m3", "m1"]);
		expect((await adapter.find({ query: {}, sort: ["-Rank", "_id"] })).map(d => d._id)).toEqual(["m1", "m3", "m2"]);
	});

	test("sort on several fields, offset and limit make stable pages without gaps or overlaps", async () => {
		await seed(30);
		const all = (await adapter.find({ query: {}, sort: ["CreatedTime", "_id"] })).map(d => d._id);
		const paged: string[] = [];
		for (let offset = 0; offset < 30; offset += 7) {
			paged.push(...(await adapter.find({ query: {}, sort: ["CreatedTime", "_id"], offset, limit: 7 })).map(d => d._id));
		}
		expect(paged).toEqual(all);
		expect(new Set(paged).size).toBe(30);
		const descending = await adapter.find({ query: {}, sort: ["-N"], limit: 2 });
		expect(descending.map(d => d.N)).toEqual([29, 28]);
	});

	test("count with and without a query", async () => {
		await seed(10);
		expect(await adapter.count({})).toBe(10);
		expect(await adapter.count({ query: { Group: 0 } })).toBe(4);
	});

	test("updates: $set, $unset, $inc, $push, $pull; the updated document comes back", async () => {
		await adapter.insert({ _id: "u1", Name: "Old", Count: 1, List: ["a"], Gone: true });
		const updated = await adapter.updateById("u1", { $set: { Name: "New" }, $unset: { Gone: true }, $inc: { Count: 2 }, $push: { List: "b" } });
		expect(updated).toMatchObject({ _id: "u1", Name: "New", Count: 3, List: ["a", "b"] });
		expect(updated).not.toHaveProperty("Gone");
		await adapter.updateById("u1", { $pull: { List: "a" } });
		expect(await adapter.findById("u1")).toMatchObject({ List: ["b"] });
		expect(await adapter.updateById("nobody", { $set: { Name: "X" } })).toBeNull();
		await seed(6);
		expect(await adapter.updateMany({ Group: 2 }, { $set: { Flag: true } })).toBe(2);
		expect(await adapter.count({ query: { Flag: true } })).toBe(2);
	});

	test("list updates: $addToSet and $push with $each, $pull with $in; missing fields", async () => {
		await adapter.insert({ _id: "s1", Set: ["a"] });
		expect(await adapter.updateById("s1", { $addToSet: { Set: "a" } })).toMatchObject({ Set: ["a"] });
		expect(await adapter.updateById("s1", { $addToSet: { Set: { $each: ["b", "a", "c", "b"] } } })).toMatchObject({ Set: ["a", "b", "c"] });
		expect(await adapter.updateById("s1", { $push: { Set: { $each: ["x", "a"] } } })).toMatchObject({ Set: ["a", "b", "c", "x", "a"] });
		expect(await adapter.updateById("s1", { $pull: { Set: { $in: ["a", "x"] } } })).toMatchObject({ Set: ["b", "c"] });
		expect(await adapter.updateById("s1", { $addToSet: { Added: "v" }, $push: { Pushed: 1 }, $inc: { Counted: 2 } })).toMatchObject({ Added: ["v"], Pushed: [1], Counted: 2 });
		expect(await adapter.updateMany({ Set: "c" }, { $inc: { Counted: 1 }, $unset: { Pushed: true } })).toBe(1);
		expect(await adapter.findById("s1")).toEqual({ _id: "s1", Set: ["b", "c"], Added: ["v"], Counted: 3 });
	});

	test("$inc is atomic under concurrent updates", async () => {
		await adapter.insert({ _id: "c1", Count: 0 });
		await Promise.all(Array.from({ length: 25 }, () => adapter.updateById("c1", { $inc: { Count: 1 } })));
		expect(await adapter.findById("c1")).toMatchObject({ Count: 25 });
	});

	test("remove by id and by query", async () => {
		await seed(9);
		await adapter.removeById("id000");
		expect(await adapter.findById("id000")).toBeNull();
		expect(await adapter.removeMany({ Group: 1 })).toBe(3);
		expect(await adapter.count({})).toBe(5);
	});

	test("a unique index violation is 409 AlreadyExists naming the field, and nothing is written", async () => {
		await adapter.insert({ _id: "k1", Key: "same" });
		await adapter.insert({ _id: "k2" }); // sparse: documents without the key never collide
		await adapter.insert({ _id: "k3" });
		const duplicate = adapter.insert({ _id: "k4", Key: "same" });
		await expect(duplicate).rejects.toBeInstanceOf(PlazaError);
		await expect(duplicate).rejects.toMatchObject({ code: 409, type: "AlreadyExists", data: { errors: [expect.objectContaining({ FieldName: "Name" })] } });
		expect(await adapter.findById("k4")).toBeNull();
		await adapter.insert({ _id: "k5", Key: "other" });
		await expect(adapter.updateById("k5", { $set: { Key: "same" } })).rejects.toMatchObject({ code: 409, type: "AlreadyExists" });
		expect(await adapter.findById("k5")).toMatchObject({ Key: "other" });
	});

	test("concurrent inserts of one unique key: exactly one wins", async () => {
		const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => adapter.insert({ _id: `r${i}`, Key: "race" })));
		expect(results.filter(r => r.status === "fulfilled")).toHaveLength(1);
		expect(await adapter.count({ query: { Key: "race" } })).toBe(1);
	});
});

test("NeDB files keep their documents and indexes across a restart", async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-restart-"));
	const start = async () => {
		const broker = new ServiceBroker({ logger: false });
		const service = broker.createService({ name: "durable", mixins: [storeMixin({ kind: "sqlite", dir }, "durable", [{ field: "Key", unique: true }])] });
		await broker.start();
		return { broker, adapter: (service as unknown as { adapter: StoreAdapter }).adapter };
	};
	try {
		const first = await start();
		await first.adapter.insert({ _id: "d1", Key: "kept" });
		await first.adapter.updateById("d1", { $set: { Name: "Updated" } });
		await first.broker.stop();

		const second = await start();
		expect(await second.adapter.findById("d1")).toMatchObject({ Key: "kept", Name: "Updated" });
		await expect(second.adapter.insert({ _id: "d2", Key: "kept" })).rejects.toMatchObject({ code: 409 });
		await second.broker.stop();
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});
