import { IdempotencyKeys } from "../shared/idempotency/keys";
import { idempotencyKeysMigrations, keysDomain, SqlIdempotencyKeys } from "../shared/idempotency/keys.sql";
import { idempotencyKeysMongoMigrations, MongoIdempotencyKeys } from "../shared/idempotency/keys.mongo";
import { LimitsRepository } from "../services/users/limits.repository";
import { limitsMigrations } from "../services/users/limits.schema";
import { MongoLimitsRepository, limitsMongoMigrations } from "../services/users/limits.mongo";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

describe.each(storeEngines)("the idempotency keys repository on %s", engine => {
	const under = onStore<IdempotencyKeys>(engine, {
		domain: keysDomain,
		sql: { migrations: idempotencyKeysMigrations, create: db => new SqlIdempotencyKeys(db) },
		mongo: { migrations: idempotencyKeysMongoMigrations, create: store => new MongoIdempotencyKeys(store) },
	});

	test("a key is claimed once while its lease runs, answered once by its holder, and claimed again once it expired", async () => {
		const key = newGuid();
		expect(await under.repo.claim(key, "first", "t1", 1000, 2000)).toEqual({ state: "claimed" });
		expect(await under.repo.claim(key, "second", "t2", 1500, 2500)).toEqual({ state: "running", fingerprint: "first" });
		expect(await under.repo.answer(key, "t2", "not the holder's", 9000)).toBe(0);
		expect(await under.repo.answer(key, "t1", "sealed answer", 9000)).toBe(1);
		expect(await under.repo.answer(key, "t1", "another answer", 9000)).toBe(0);
		expect(await under.repo.claim(key, "second", "t3", 5000, 6000)).toEqual({
			state: "done",
			fingerprint: "first",
			answer: "sealed answer",
		});
		expect(await under.repo.claim(key, "third", "t4", 9000, 10_000)).toEqual({ state: "claimed" });
		expect(await under.repo.claim(key, "fourth", "t5", 9001, 10_001)).toEqual({
			state: "running",
			fingerprint: "third",
		});
	});

	test("of ten concurrent claims of one key, one claims it", async () => {
		const key = newGuid();
		const claims = await Promise.all(
			Array.from({ length: 10 }, (_, i) => under.repo.claim(key, `f${i}`, `t${i}`, 1000, 2000)),
		);
		const winner = claims.findIndex(claim => claim.state === "claimed");
		expect(claims.filter(claim => claim.state === "claimed")).toHaveLength(1);
		expect(await under.repo.claim(key, "later", "t", 1500, 2500)).toEqual({
			state: "running",
			fingerprint: `f${winner}`,
		});
	});

	test("a lapsed claim with nothing committed is taken over; a committed one is never run again, and lost once its lease is over", async () => {
		const [lapsed, committed] = [newGuid(), newGuid()];
		await under.repo.claim(lapsed, "f", "old", 1000, 2000);
		expect(await under.repo.claim(lapsed, "f", "new", 2000, 3000)).toEqual({ state: "claimed" });
		// The first holder's write now fails: its key was taken over.
		await expect(under.repo.markCommitted(lapsed, "old", 50_000)).rejects.toMatchObject({
			type: "IdempotencyKeyInUse",
		});
		await under.repo.claim(committed, "f", "held", 1000, 2000);
		await under.repo.markCommitted(committed, "held", 50_000);
		expect(await under.repo.claim(committed, "f", "retry", 1500, 2500)).toEqual({ state: "running", fingerprint: "f" });
		expect(await under.repo.claim(committed, "f", "retry", 2000, 3000)).toEqual({ state: "lost", fingerprint: "f" });
	});

	test("a claim given up is gone unless its write committed; an answered one stays; expired keys are purged", async () => {
		const [released, committed, answered] = [newGuid(), newGuid(), newGuid()];
		await under.repo.claim(released, "f", "t", 1000, 2000);
		await under.repo.claim(committed, "f", "t", 1000, 2000);
		await under.repo.markCommitted(committed, "t", 50_000);
		await under.repo.claim(answered, "f", "t", 1000, 2000);
		await under.repo.answer(answered, "t", "kept", 50_000);
		for (const key of [released, committed, answered]) await under.repo.giveUp(key, "t");
		expect(await under.repo.claim(released, "g", "u", 1100, 2100)).toEqual({ state: "claimed" });
		expect(await under.repo.claim(committed, "g", "u", 1100, 2100)).toEqual({ state: "lost", fingerprint: "f" });
		expect(await under.repo.removeExpired(2100)).toBeGreaterThanOrEqual(1);
		expect(await under.repo.claim(answered, "h", "u", 2200, 3200)).toEqual({
			state: "done",
			fingerprint: "f",
			answer: "kept",
		});
	});
});

describe.each(storeEngines)("the attempt counters repository on %s", engine => {
	const under = onStore<RepositoryContract<LimitsRepository>>(engine, {
		domain: "limits",
		sql: { migrations: limitsMigrations, create: db => new LimitsRepository(db) },
		mongo: { migrations: limitsMongoMigrations, create: store => new MongoLimitsRepository(store) },
	});

	test("ten concurrent additions to one counter make ten, each seeing the total it made", async () => {
		const key = `ip:${newGuid()}`;
		const totals = await Promise.all(
			Array.from({ length: 10 }, () => under.repo.add(60_000, 60_000, 200_000, { [key]: 1 })),
		);
		expect(totals.map(total => total[key]).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(await under.repo.windowsOf([key], 100_000)).toEqual([{ key, window: 60_000, windowMs: 60_000, count: 10 }]);
	});

	test("counts add per window and can be taken back; zero counts are left out; windows come oldest first until they expire", async () => {
		const [a, b] = [`user:${newGuid()}`, `user:${newGuid()}`];
		expect(await under.repo.add(120_000, 60_000, 300_000, { [a]: 3, [b]: 0 })).toEqual({ [a]: 3 });
		expect(await under.repo.add(60_000, 60_000, 150_000, { [a]: 2 })).toEqual({ [a]: 2 });
		expect(await under.repo.add(120_000, 60_000, 300_000, { [a]: -1 })).toEqual({ [a]: 2 });
		expect(await under.repo.windowsOf([a, b], 100_000)).toEqual([
			{ key: a, window: 60_000, windowMs: 60_000, count: 2 },
			{ key: a, window: 120_000, windowMs: 60_000, count: 2 },
		]);
		expect(await under.repo.windowsOf([a], 150_000)).toEqual([{ key: a, window: 120_000, windowMs: 60_000, count: 2 }]);
		expect(await under.repo.windowsOf([], 0)).toEqual([]);
	});

	test("a key's windows are cleared together; expired windows are purged, others kept", async () => {
		const [cleared, kept] = [`ip:${newGuid()}`, `ip:${newGuid()}`];
		await under.repo.add(60_000, 60_000, 150_000, { [cleared]: 1, [kept]: 1 });
		await under.repo.add(120_000, 60_000, 900_000, { [cleared]: 1, [kept]: 1 });
		expect(await under.repo.clear([cleared])).toBe(2);
		expect(await under.repo.clear([])).toBe(0);
		expect(await under.repo.removeExpired(150_000)).toBeGreaterThanOrEqual(1);
		expect(await under.repo.windowsOf([cleared, kept], 0)).toEqual([
			{ key: kept, window: 120_000, windowMs: 60_000, count: 1 },
		]);
	});
});
