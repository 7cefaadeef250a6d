import { IdempotencyRepository } from "../services/users/idempotency.repository";
import { idempotencyMigrations } from "../services/users/idempotency.schema";
import { MongoIdempotencyRepository, idempotencyMongoMigrations } from "../services/users/idempotency.mongo";
import { LimitsRepository } from "../services/users/limits.repository";
import { limitsMigrations } from "../services/users/limits.schema";
import { MongoLimitsRepository, limitsMongoMigrations } from "../services/users/limits.mongo";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

describe.each(storeEngines)("the idempotency keys repository on %s", engine => {
	const under = onStore<RepositoryContract<IdempotencyRepository>>(engine, {
		domain: "idempotency",
		sql: { migrations: idempotencyMigrations, create: db => new IdempotencyRepository(db) },
		mongo: { migrations: idempotencyMongoMigrations, create: store => new MongoIdempotencyRepository(store) },
	});

	test("a key is claimed once while its lease runs, answered once, and claimed again once it expired", async () => {
		const key = newGuid();
		expect(await under.repo.claim(key, "first", 1000, 2000)).toEqual({ state: "claimed" });
		expect(await under.repo.claim(key, "second", 1500, 2500)).toEqual({ state: "running", fingerprint: "first" });
		expect(await under.repo.answer(key, "sealed answer", 9000)).toBe(1);
		expect(await under.repo.answer(key, "another answer", 9000)).toBe(0);
		expect(await under.repo.claim(key, "second", 5000, 6000)).toEqual({ state: "done", fingerprint: "first", answer: "sealed answer" });
		expect(await under.repo.claim(key, "third", 9000, 10_000)).toEqual({ state: "claimed" });
		expect(await under.repo.claim(key, "fourth", 9001, 10_001)).toEqual({ state: "running", fingerprint: "third" });
	});

	test("of ten concurrent claims of one key, one claims it", async () => {
		const key = newGuid();
		const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => under.repo.claim(key, `f${i}`, 1000, 2000)));
		const winner = claims.findIndex(claim => claim.state === "claimed");
		expect(claims.filter(claim => claim.state === "claimed")).toHaveLength(1);
		expect(await under.repo.claim(key, "later", 1500, 2500)).toEqual({ state: "running", fingerprint: `f${winner}` });
	});

	test("a released claim is gone, an answered one is not released; expired keys are purged", async () => {
		const [released, answered] = [newGuid(), newGuid()];
		await under.repo.claim(released, "f", 1000, 2000);
		await under.repo.claim(answered, "f", 1000, 2000);
		await under.repo.answer(answered, "kept", 50_000);
		expect(await under.repo.release(released)).toBe(1);
		expect(await under.repo.release(answered)).toBe(0);
		expect(await under.repo.claim(released, "g", 1100, 2100)).toEqual({ state: "claimed" });
		expect(await under.repo.removeExpired(2100)).toBeGreaterThanOrEqual(1);
		expect(await under.repo.release(released)).toBe(0);
		expect(await under.repo.claim(answered, "h", 2200, 3200)).toEqual({ state: "done", fingerprint: "f", answer: "kept" });
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
		const totals = await Promise.all(Array.from({ length: 10 }, () => under.repo.add(60_000, 60_000, 200_000, { [key]: 1 })));
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
		expect(await under.repo.windowsOf([cleared, kept], 0)).toEqual([{ key: kept, window: 120_000, windowMs: 60_000, count: 1 }]);
	});
});
