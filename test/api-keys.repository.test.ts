import { ApiKeysRepository } from "../services/users/api-keys.repository";
import { apiKeysMigrations } from "../services/users/api-keys.schema";
import { apiKeysMongoMigrations, MongoApiKeysRepository } from "../services/users/api-keys.mongo";
import { ApiKeyRow } from "../services/users/api-keys.rows";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

let made = 0;

/** A new key of `userId` with a unique Id and hash; fields override. */
function newKey(userId: string, fields: Partial<ApiKeyRow> = {}): ApiKeyRow {
	made += 1;
	return {
		Id: 1000 + made,
		KeyHash: `hash-${newGuid()}`,
		VisibleKey: `ak-***${String(made).padStart(3, "0")}`,
		Name: `key ${made}`,
		UserId: userId,
		Scopes: [],
		CreatedDate: 10_000 + made,
		...fields,
	};
}

describe.each(storeEngines)("the API keys repository on %s", engine => {
	const under = onStore<RepositoryContract<ApiKeysRepository>>(engine, {
		domain: "apikeys",
		sql: { migrations: apiKeysMigrations, create: db => new ApiKeysRepository(db) },
		mongo: { migrations: apiKeysMongoMigrations, create: store => new MongoApiKeysRepository(store) },
	});

	test("a key is written once and read back by Id and by hash, optional fields absent when not given", async () => {
		const full = newKey(newGuid(), {
			UserName: "ada",
			Scopes: ["posts:read", "posts:write"],
			Notes: "for the build",
			ExpiryDate: 99_000_000_000,
			CancelledDate: 98_000_000_000,
		});
		const bare = newKey(newGuid());
		expect(await under.repo.create(full)).toBe(true);
		expect(await under.repo.create(bare)).toBe(true);
		expect(await under.repo.find(full.Id)).toEqual(full);
		expect(await under.repo.byHash(full.KeyHash)).toEqual(full);
		expect(await under.repo.find(bare.Id)).toStrictEqual(bare);
		expect(await under.repo.byHash(bare.KeyHash)).toStrictEqual(bare);
		expect(await under.repo.find(1)).toBeUndefined();
		expect(await under.repo.byHash("no such hash")).toBeUndefined();
	});

	test("a key whose Id or hash is taken is not written", async () => {
		const first = newKey(newGuid());
		expect(await under.repo.create(first)).toBe(true);
		const sameId = newKey(newGuid(), { Id: first.Id });
		const sameHash = newKey(newGuid(), { KeyHash: first.KeyHash });
		expect(await under.repo.create(sameId)).toBe(false);
		expect(await under.repo.create(sameHash)).toBe(false);
		expect(await under.repo.find(first.Id)).toEqual(first);
		expect(await under.repo.find(sameHash.Id)).toBeUndefined();
		expect(await under.repo.byHash(sameId.KeyHash)).toBeUndefined();
	});

	test("a page lists one user's keys or all, newest first (ties by Id), cut by skip and take", async () => {
		const [ada, bob] = [newGuid(), newGuid()];
		const keys = [
			newKey(ada, { CreatedDate: 50_000 }),
			newKey(bob, { CreatedDate: 50_001 }),
			newKey(ada, { CreatedDate: 50_002 }),
			newKey(ada, { CreatedDate: 50_002 }),
			newKey(ada, { CreatedDate: 40_000 }),
		];
		for (const key of keys) await under.repo.create(key);
		const ids = (rows: ApiKeyRow[]) => rows.map(row => row.Id);
		const [a0, b1, a2, a3, a4] = ids(keys);
		expect(ids(await under.repo.page({ userId: ada }, 0, 10))).toEqual([a3, a2, a0, a4]);
		expect(ids(await under.repo.page({ userId: ada }, 1, 2))).toEqual([a2, a0]);
		expect(ids(await under.repo.page({ userId: ada }, 4, 2))).toEqual([]);
		expect(ids(await under.repo.page({ userId: ada }, 0, 0))).toEqual([]);
		expect(await under.repo.page({ userId: bob }, 0, 10)).toEqual([keys[1]]);
		// These are the newest keys of any user in this suite.
		expect(ids(await under.repo.page({}, 0, 3))).toEqual([a3, a2, b1]);
		expect(await under.repo.page({ userId: newGuid() }, 0, 10)).toEqual([]);
	});

	test("a search matches Name or Notes in any case, its wildcards taken literally", async () => {
		const [ada, bob] = [newGuid(), newGuid()];
		const token = newGuid().slice(0, 8);
		const byName = newKey(ada, { Name: `Deploy ${token} BOT`, CreatedDate: 20_003 });
		const byNotes = newKey(ada, { Notes: `used by the ${token} bot`, CreatedDate: 20_002 });
		const wild = newKey(ada, { Name: `100%_${token}`, CreatedDate: 20_001 });
		const other = newKey(bob, { Name: `${token} bot of bob`, CreatedDate: 20_000 });
		const unrelated = newKey(ada, { Name: "reports", Notes: "nightly" });
		for (const key of [byName, byNotes, wild, other, unrelated]) await under.repo.create(key);
		const ids = (rows: ApiKeyRow[]) => rows.map(row => row.Id);
		expect(ids(await under.repo.page({ search: `${token} bot` }, 0, 10))).toEqual([byName.Id, byNotes.Id, other.Id]);
		expect(ids(await under.repo.page({ userId: ada, search: `${token.toUpperCase()} BOT` }, 0, 10))).toEqual([
			byName.Id,
			byNotes.Id,
		]);
		expect(ids(await under.repo.page({ userId: ada, search: token }, 1, 1))).toEqual([byNotes.Id]);
		expect(ids(await under.repo.page({ search: `0%_${token}` }, 0, 10))).toEqual([wild.Id]);
		expect(ids(await under.repo.page({ search: `1%0${token}` }, 0, 10))).toEqual([]);
		expect(ids(await under.repo.page({ search: `100__${token}` }, 0, 10))).toEqual([]);
		expect(ids(await under.repo.page({ userId: ada, search: "" }, 0, 10))).toHaveLength(4);
	});

	test("an update sets the fields given, clears those given null, keeps the rest; none for unknown keys", async () => {
		const key = newKey(newGuid(), { Notes: "old", ExpiryDate: 70_000, Scopes: ["posts:read"] });
		await under.repo.create(key);
		const updated = await under.repo.update(key.Id, {
			Name: "renamed",
			Scopes: ["posts:read", "media:write"],
			Notes: null,
			CancelledDate: 60_000,
		});
		const expected: ApiKeyRow = {
			...key,
			Name: "renamed",
			Scopes: ["posts:read", "media:write"],
			CancelledDate: 60_000,
		};
		delete expected.Notes;
		expect(updated).toStrictEqual(expected);
		expect(await under.repo.find(key.Id)).toStrictEqual(expected);
		delete expected.ExpiryDate;
		expect(await under.repo.update(key.Id, { ExpiryDate: null, Notes: undefined, Scopes: [] })).toStrictEqual({
			...expected,
			Scopes: [],
		});
		expect(await under.repo.update(key.Id, {})).toStrictEqual({ ...expected, Scopes: [] });
		expect(await under.repo.update(1, { Name: "nobody's" })).toBeUndefined();
		expect(await under.repo.update(1, {})).toBeUndefined();
	});

	test("a removed key is returned once and gone", async () => {
		const key = newKey(newGuid(), { Scopes: ["posts:read"], Notes: "to go" });
		await under.repo.create(key);
		expect(await under.repo.remove(key.Id)).toEqual(key);
		expect(await under.repo.remove(key.Id)).toBeUndefined();
		expect(await under.repo.find(key.Id)).toBeUndefined();
		expect(await under.repo.byHash(key.KeyHash)).toBeUndefined();
		// Its hash is free again.
		expect(await under.repo.create(newKey(key.UserId, { KeyHash: key.KeyHash }))).toBe(true);
	});

	test("a user's key hashes are those of their keys only, oldest first", async () => {
		const [ada, bob] = [newGuid(), newGuid()];
		const later = newKey(ada, { CreatedDate: 30_001 });
		const earlier = newKey(ada, { CreatedDate: 30_000 });
		for (const key of [later, earlier, newKey(bob)]) await under.repo.create(key);
		expect(await under.repo.hashesOf(ada)).toEqual([earlier.KeyHash, later.KeyHash]);
		expect(await under.repo.hashesOf(newGuid())).toEqual([]);
	});
});
