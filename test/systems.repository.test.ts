import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Datastore from "@seald-io/nedb";
import { devicesLegacy } from "../services/systems/devices.legacy";
import { mediaLegacy } from "../services/systems/media.legacy";
import { reservationsLegacy } from "../services/systems/reservations.legacy";
import { systemsLegacy } from "../services/systems/systems.legacy";
import { importLegacyOnce } from "../shared/persistence/legacy";
import { PostgresBlobs } from "../shared/persistence/blobs.postgres";
import { SqliteDatabase } from "../shared/persistence/sql/sqlite";
import { DevicesRepository } from "../services/systems/devices.repository";
import { devicesMigrations } from "../services/systems/devices.schema";
import { MediaRepository, MediaRow } from "../services/systems/media.repository";
import { mediaMigrations } from "../services/systems/media.schema";
import { ReservationRow, ReservationsRepository } from "../services/systems/reservations.repository";
import { reservationsMigrations } from "../services/systems/reservations.schema";
import { ServiceMapRow, SystemsRepository, WorkItemRow } from "../services/systems/systems.repository";
import { systemsMigrations } from "../services/systems/systems.schema";
import { migrate } from "../shared/persistence/sql/migrations";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { MongoSystemsRepository, systemsMongoMigrations } from "../services/systems/systems.mongo";
import { MongoDevicesRepository, devicesMongoMigrations } from "../services/systems/devices.mongo";
import { MongoReservationsRepository, reservationsMongoMigrations } from "../services/systems/reservations.mongo";
import { MongoMediaRepository, mediaMongoMigrations } from "../services/systems/media.mongo";

const times = <T>(n: number, make: (i: number) => Promise<T>) =>
	Promise.all(Array.from({ length: n }, (_, i) => make(i)));
const settled = <T>(n: number, make: (i: number) => Promise<T>) =>
	Promise.allSettled(Array.from({ length: n }, (_, i) => make(i)));

describe.each(storeEngines)("the systems domain's repositories on %s", engine => {
	// The four services keep apart databases in a deployment, as here.
	const systemsStore = onStore<RepositoryContract<SystemsRepository>>(engine, {
		domain: "systems",
		sql: { migrations: systemsMigrations, create: db => new SystemsRepository(db) },
		mongo: { migrations: systemsMongoMigrations, create: store => new MongoSystemsRepository(store) },
	});
	const devicesStore = onStore<RepositoryContract<DevicesRepository>>(engine, {
		domain: "devices",
		sql: { migrations: devicesMigrations, create: db => new DevicesRepository(db) },
		mongo: { migrations: devicesMongoMigrations, create: store => new MongoDevicesRepository(store) },
	});
	const reservationsStore = onStore<RepositoryContract<ReservationsRepository>>(engine, {
		domain: "reservations",
		sql: { migrations: reservationsMigrations, create: db => new ReservationsRepository(db) },
		mongo: { migrations: reservationsMongoMigrations, create: store => new MongoReservationsRepository(store) },
	});
	const mediaStore = onStore<RepositoryContract<MediaRepository>>(engine, {
		domain: "media",
		sql: { migrations: mediaMigrations, create: db => new MediaRepository(db) },
		mongo: { migrations: mediaMongoMigrations, create: store => new MongoMediaRepository(store) },
	});
	let systems: RepositoryContract<SystemsRepository>;
	let devices: RepositoryContract<DevicesRepository>;
	let reservations: RepositoryContract<ReservationsRepository>;
	let media: RepositoryContract<MediaRepository>;
	beforeAll(() => {
		systems = systemsStore.repo;
		devices = devicesStore.repo;
		reservations = reservationsStore.repo;
		media = mediaStore.repo;
	});

	describe("systems, work items and service maps", () => {
		const workItem = (fields: Partial<WorkItemRow> = {}): WorkItemRow => ({
			Id: newGuid(),
			ShortDescription: "Fix it",
			CreatedTime: Date.now(),
			...fields,
		});
		const mapOf = (item: WorkItemRow, systemId: number, referenceId: string): ServiceMapRow => ({
			Id: newGuid(),
			SystemId: systemId,
			ReferenceId: referenceId,
			WorkItemId: item.Id,
			CreatedTime: Date.now(),
		});

		test("system ids are 1, 2, 3 … ascending without gaps when created at once, and listed in that order", async () => {
			const created = await times(10, i => systems.createSystem({ Name: `S${i}`, CreatedTime: 1000 + i }));
			expect(created.map(s => s.Id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
			expect(await systems.findSystem(created[0].Id)).toEqual(created[0]);
			expect((await systems.systems({ Offset: 0, Limit: 100 })).map(s => s.Id)).toEqual([
				1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
			]);
		});

		test("systems paged by offset and by cursor agree; an unknown cursor is a 400 on AfterId; Limit 0 is empty", async () => {
			const byOffset = await systems.systems({ Offset: 4, Limit: 3 });
			expect(await systems.systems({ Offset: 0, Limit: 3, AfterId: 4 })).toEqual(byOffset);
			expect(await systems.systems({ Offset: 1, Limit: 3, AfterId: 3 })).toEqual(byOffset);
			expect(await systems.systems({ Offset: 0, Limit: 0 })).toEqual([]);
			await expect(systems.systems({ Offset: 0, Limit: 3, AfterId: 9999 })).rejects.toMatchObject({ code: 400 });
		});

		test("imported systems keep their ids, and the counter moves past them and the former counter", async () => {
			await systems.importSystem({ Id: 40, Name: "Imported", Url: "https://x.example", CreatedTime: 5 });
			await systems.importSystem({ Id: 40, Name: "Imported again", CreatedTime: 6 });
			expect(await systems.findSystem(40)).toEqual({
				Id: 40,
				Name: "Imported",
				Url: "https://x.example",
				CreatedTime: 5,
			});
			expect((await systems.createSystem({ Name: "Next", CreatedTime: 7 })).Id).toBe(41);
			await systems.importCounter(50);
			await systems.importCounter(3);
			expect((await systems.createSystem({ Name: "After the counter", CreatedTime: 8 })).Id).toBe(51);
		});

		test("a work item and its map are written together; a mapped reference is a 409 on ReferenceId and leaves no work item", async () => {
			const first = workItem({ ReferenceId: "PROJ-1", SystemId: 1 });
			expect(await systems.createWorkItem(first, mapOf(first, 1, "PROJ-1"))).toEqual(first);
			expect(await systems.findWorkItem(first.Id)).toEqual(first);
			const items = await systemsStore.count("work_items", { reference_id: "PROJ-1" });
			const second = workItem({ ReferenceId: "PROJ-1", SystemId: 1 });
			await expect(systems.createWorkItem(second, mapOf(second, 1, "PROJ-1"))).rejects.toMatchObject({
				code: 409,
				data: { errors: [{ FieldName: "ReferenceId" }] },
			});
			expect(await systemsStore.count("work_items", { reference_id: "PROJ-1" })).toBe(items);
			expect(await systems.findWorkItem(second.Id)).toBeUndefined();
		});

		test("when the map's insert fails for any reason, the work item is rolled back with it", async () => {
			const item = workItem();
			const broken = { ...mapOf(item, 1, "PROJ-2"), ReferenceId: null as unknown as string };
			await expect(systems.createWorkItem(item, broken)).rejects.toThrow();
			expect(await systems.findWorkItem(item.Id)).toBeUndefined();
			expect(await systemsStore.count("service_maps", { work_item_id: item.Id })).toBe(0);
		});

		test("10 identical CreateServiceMap at once make one map; 10 mapped work items at once make one work item", async () => {
			const item = workItem();
			await systems.createWorkItem(item);
			const maps = await times(10, () => systems.createMap(mapOf(item, 2, "EXT-7")));
			expect(maps.filter(Boolean)).toHaveLength(1);
			expect(await systemsStore.count("service_maps", { reference_id: "EXT-7" })).toBe(1);

			const before = await systemsStore.count("work_items", { reference_id: "EXT-9" });
			const results = await settled(10, () => {
				const racing = workItem({ ReferenceId: "EXT-9", SystemId: 2 });
				return systems.createWorkItem(racing, mapOf(racing, 2, "EXT-9"));
			});
			expect(results.filter(r => r.status === "fulfilled")).toHaveLength(1);
			expect(results.filter(r => r.status === "rejected").map(r => (r.reason as { code?: unknown }).code)).toEqual(
				Array(9).fill(409),
			);
			expect(await systemsStore.count("work_items", { reference_id: "EXT-9" })).toBe(before + 1);
			expect(await systemsStore.count("service_maps", { reference_id: "EXT-9" })).toBe(1);
		});

		test("maps paged by offset and by cursor agree, filtered by system and reference", async () => {
			const item = workItem();
			await systems.createWorkItem(item);
			for (let i = 0; i < 12; i++) await systems.createMap({ ...mapOf(item, 3, `R-${i}`), CreatedTime: 100 + (i % 4) });
			const all = await systems.maps({ SystemId: 3 }, { Offset: 0, Limit: 100 });
			expect(all).toHaveLength(12);
			expect(all.map(m => m.CreatedTime)).toEqual([...all.map(m => m.CreatedTime)].sort((a, b) => a - b));
			expect(await systems.maps({ SystemId: 3 }, { Offset: 0, Limit: 5, AfterId: all[4].Id })).toEqual(
				await systems.maps({ SystemId: 3 }, { Offset: 5, Limit: 5 }),
			);
			expect(await systems.maps({ SystemId: 3, ReferenceId: "R-7" }, { Offset: 0, Limit: 10 })).toEqual([
				all.find(m => m.ReferenceId === "R-7"),
			]);
			expect(await systems.maps({ ReferenceId: "R-7" }, { Offset: 0, Limit: 10 })).toHaveLength(1);
			expect((await systems.maps({}, { Offset: 0, Limit: 1000 })).length).toBeGreaterThanOrEqual(14);
			await expect(systems.maps({}, { Offset: 0, Limit: 5, AfterId: newGuid() })).rejects.toMatchObject({ code: 400 });
		});

		test("a former map whose work item was never written is not imported (it would block its reference for ever)", async () => {
			const missing = workItem();
			await systems.importMap(mapOf(missing, 1, "LOST-1"));
			expect(await systemsStore.count("service_maps", { reference_id: "LOST-1" })).toBe(0);
			const kept = workItem();
			await systems.importWorkItem(kept);
			await systems.importWorkItem(kept);
			await systems.importMap(mapOf(kept, 1, "KEPT-1"));
			await systems.importMap(mapOf(kept, 1, "KEPT-1"));
			expect(await systemsStore.count("service_maps", { reference_id: "KEPT-1" })).toBe(1);
		});

		test("a work item left without its map (a write cut off between the two) keeps nobody from mapping its reference", async () => {
			await systems.importWorkItem(workItem({ ReferenceId: "CUT-1", SystemId: 4 }));
			const retried = workItem({ ReferenceId: "CUT-1", SystemId: 4 });
			expect(await systems.createWorkItem(retried, mapOf(retried, 4, "CUT-1"))).toEqual(retried);
			expect(await systems.maps({ SystemId: 4, ReferenceId: "CUT-1" }, { Offset: 0, Limit: 10 })).toMatchObject([
				{ WorkItemId: retried.Id },
			]);
		});

		test("a work item keeps its optional fields, and leaves out those it has not", async () => {
			const full = workItem({
				LongDescription: "Long",
				ReferenceId: "FULL-1",
				SystemId: 5,
				Url: "https://w.example",
				DefaultVenueId: newGuid(),
				CreatedBy: newGuid(),
			});
			expect(await systems.createWorkItem(full)).toEqual(full);
			expect(await systems.findWorkItem(full.Id)).toEqual(full);
			const bare = workItem();
			await systems.createWorkItem(bare);
			expect(Object.keys((await systems.findWorkItem(bare.Id))!).sort()).toEqual([
				"CreatedTime",
				"Id",
				"ShortDescription",
			]);
			expect(await systems.findWorkItem(newGuid())).toBeUndefined();
			expect(await systems.findSystem(9999)).toBeUndefined();
		});
	});

	describe("devices", () => {
		test("10 identical CreateUserDevice at once make one row, and every call answers with it", async () => {
			const userId = newGuid();
			const token = "apns-" + "a".repeat(4000);
			const replies = await times(10, () =>
				devices.register({
					Id: newGuid(),
					UserId: userId,
					DeviceToken: token,
					Platform: "iOS",
					CreatedTime: Date.now(),
				}),
			);
			expect(new Set(replies.map(d => d.Id)).size).toBe(1);
			expect(replies[0]).toEqual({
				Id: replies[0].Id,
				UserId: userId,
				DeviceToken: token,
				Platform: "iOS",
				CreatedTime: expect.any(Number),
			});
			expect(await devicesStore.count("user_devices", { user_id: userId })).toBe(1);
			expect(await devices.unregister(newGuid(), replies[0].Id)).toBeUndefined();
			expect(await devices.unregister(userId, replies[0].Id)).toEqual(replies[0]);
			expect(await devices.ofUser(userId, { Offset: 0, Limit: 10 })).toEqual([]);
		});

		test("a user's devices paged by offset and by cursor agree", async () => {
			const userId = newGuid();
			for (let i = 0; i < 9; i++)
				await devices.register({ Id: newGuid(), UserId: userId, DeviceToken: `t${i}`, CreatedTime: 10 + (i % 3) });
			const all = await devices.ofUser(userId, { Offset: 0, Limit: 100 });
			expect(all).toHaveLength(9);
			expect(await devices.ofUser(userId, { Offset: 0, Limit: 4, AfterId: all[3].Id })).toEqual(
				await devices.ofUser(userId, { Offset: 4, Limit: 4 }),
			);
			await expect(devices.ofUser(newGuid(), { Offset: 0, Limit: 4, AfterId: all[3].Id })).rejects.toMatchObject({
				code: 400,
			});
			expect(await devices.ofUser(userId, { Offset: 0, Limit: 0 })).toEqual([]);
		});

		test("an imported device is written once; another user's device of the same token is another device", async () => {
			const device = { Id: newGuid(), UserId: newGuid(), DeviceToken: "shared-token", Name: "Phone", CreatedTime: 3 };
			await devices.importDevice(device);
			await devices.importDevice(device);
			await devices.importDevice({ ...device, Id: newGuid() });
			expect(await devices.ofUser(device.UserId, { Offset: 0, Limit: 10 })).toEqual([device]);
			const other = await devices.register({ ...device, Id: newGuid(), UserId: newGuid() });
			expect(other.Id).not.toBe(device.Id);
			expect(await devicesStore.count("user_devices", { user_id: other.UserId })).toBe(1);
		});

		test("forgetting a user removes all their devices and no one else's; again, it removes nothing", async () => {
			const [userId, otherId] = [newGuid(), newGuid()];
			for (let i = 0; i < 3; i++)
				await devices.register({ Id: newGuid(), UserId: userId, DeviceToken: `forget-${i}`, CreatedTime: i });
			const kept = await devices.register({ Id: newGuid(), UserId: otherId, DeviceToken: "forget-0", CreatedTime: 1 });
			expect(await devices.removeAllOf(userId)).toBe(3);
			expect(await devicesStore.count("user_devices", { user_id: userId })).toBe(0);
			expect(await devices.ofUser(otherId, { Offset: 0, Limit: 10 })).toEqual([kept]);
			expect(await devices.removeAllOf(userId)).toBe(0);
		});
	});

	describe("media records", () => {
		const picture = (ownerId: string, createdTime: number): MediaRow => ({
			Id: newGuid(),
			Kind: "Picture",
			OwnerId: ownerId,
			ContentType: "image/png",
			Size: 10,
			ETag: "e",
			CreatedTime: createdTime,
		});

		test("the current avatar is the latest; an owner's pictures paged by offset and by cursor agree", async () => {
			const userId = newGuid();
			await media.create({
				Id: newGuid(),
				Kind: "Avatar",
				UserId: userId,
				ContentType: "image/png",
				Size: 1,
				ETag: "a",
				CreatedTime: 1,
			});
			const latest = await media.create({
				Id: newGuid(),
				Kind: "Avatar",
				UserId: userId,
				ContentType: "image/gif",
				Size: 2,
				ETag: "b",
				CreatedTime: 2,
			});
			expect(await media.currentAvatar(userId)).toEqual(latest);
			expect(await media.find(latest.Id)).toEqual(latest);

			for (let i = 0; i < 7; i++) await media.create(picture(userId, 5 + (i % 2)));
			const all = await media.picturesOf(userId, { Offset: 0, Limit: 100 });
			expect(all).toHaveLength(7);
			expect(await media.picturesOf(userId, { Offset: 0, Limit: 3, AfterId: all[2].Id })).toEqual(
				await media.picturesOf(userId, { Offset: 3, Limit: 3 }),
			);
			await expect(media.picturesOf(userId, { Offset: 0, Limit: 3, AfterId: latest.Id })).rejects.toMatchObject({
				code: 400,
			});
			expect(await media.picturesOf(userId, { Offset: 0, Limit: 0 })).toEqual([]);
		});

		test("a picture keeps its post; an imported record is written once; nothing is found for what is not there", async () => {
			const ownerId = newGuid();
			const ofPost = { ...picture(ownerId, 9), PostId: newGuid() };
			expect(await media.create(ofPost)).toEqual(ofPost);
			expect(await media.picturesOf(ownerId, { Offset: 0, Limit: 10 })).toEqual([ofPost]);
			const imported = picture(ownerId, 10);
			await media.importMedia(imported);
			await media.importMedia({ ...imported, ETag: "other" });
			expect(await media.find(imported.Id)).toEqual(imported);
			expect(await mediaStore.count("media_records", { id: imported.Id })).toBe(1);
			expect(await media.find(newGuid())).toBeUndefined();
			expect(await media.currentAvatar(ownerId)).toBeUndefined();
		});

		test("forgetting a user removes their avatars and owned pictures and answers their ids; again, none", async () => {
			const [userId, otherId] = [newGuid(), newGuid()];
			const avatar = (ofUser: string): MediaRow => ({
				...picture(ofUser, 1),
				Kind: "Avatar",
				OwnerId: undefined,
				UserId: ofUser,
			});
			const theirs = [avatar(userId), avatar(userId), picture(userId, 2), { ...picture(userId, 3), PostId: newGuid() }];
			const others = [avatar(otherId), picture(otherId, 2)];
			for (const record of [...theirs, ...others]) await media.create(record);
			expect((await media.removeAllOf(userId)).sort()).toEqual(theirs.map(m => m.Id).sort());
			for (const record of theirs) expect(await media.find(record.Id)).toBeUndefined();
			expect(await media.currentAvatar(userId)).toBeUndefined();
			expect(await media.picturesOf(userId, { Offset: 0, Limit: 10 })).toEqual([]);
			for (const record of others) expect(await media.find(record.Id)).toEqual(record);
			expect(await media.removeAllOf(userId)).toEqual([]);
		});
	});

	test("on PostgreSQL, the media migration makes the blob table and the blob store keeps bytes in it", async () => {
		if (mediaStore.sql?.dialect.name !== "postgres") return;
		const blobs = new PostgresBlobs(mediaStore.sql);
		const id = newGuid();
		await blobs.put(id, Buffer.from([1, 2, 3]));
		await blobs.put(id, Buffer.from([4, 5]));
		expect(await blobs.get(id)).toEqual(Buffer.from([4, 5]));
		await blobs.remove(id);
		expect(await blobs.get(id)).toBeNull();
	});

	describe("reservations: the conversion claim", () => {
		const reservation = async (fields: Partial<ReservationRow> = {}) =>
			reservations.create({
				Id: newGuid(),
				Email: "guest@example.org",
				InvitedBy: newGuid(),
				ExpirationDate: Date.now() + 60_000,
				CreatedTime: Date.now(),
				...fields,
			});

		test("open → pending (one attempt of many at once) → done; a done reservation is never claimed again", async () => {
			const r = await reservation({ FirstName: "Gue" });
			expect(await reservations.find(r.Id)).toEqual({ ...r, conversion: { State: "open" } });
			const now = Date.now();
			const attempts = Array.from({ length: 10 }, () => newGuid());
			const claims = await Promise.all(attempts.map(a => reservations.claim(r.Id, a, now, now - 60_000)));
			expect(claims.filter(Boolean)).toEqual([{}]);
			const winner = attempts[claims.findIndex(Boolean)];
			const loser = attempts.find(a => a !== winner)!;

			const userId = newGuid();
			expect(await reservations.recordAccount(r.Id, loser, newGuid(), now)).toBe(false);
			expect(await reservations.recordAccount(r.Id, winner, userId, now)).toBe(true);
			expect((await reservations.find(r.Id))?.conversion).toEqual({
				State: "pending",
				AttemptId: winner,
				UserId: userId,
				ClaimedTime: now,
			});
			expect(await reservations.renew(r.Id, loser, now)).toBe(false);
			expect(await reservations.finish(r.Id, loser, now)).toBe(false);
			expect(await reservations.finish(r.Id, winner, now + 1)).toBe(true);
			expect((await reservations.find(r.Id))?.conversion).toMatchObject({
				State: "done",
				UserId: userId,
				ConvertedTime: now + 1,
			});
			expect(await reservations.claim(r.Id, newGuid(), now + 10 ** 9, now + 10 ** 9)).toBeUndefined();
			expect(await reservations.release(r.Id, winner)).toBe(false);
		});

		test("a failed attempt releases the claim, and the reservation is open to the next", async () => {
			const r = await reservation();
			const attempt = newGuid();
			const now = Date.now();
			expect(await reservations.claim(r.Id, attempt, now, now - 60_000)).toEqual({});
			await reservations.recordAccount(r.Id, attempt, newGuid(), now);
			expect(await reservations.release(r.Id, attempt)).toBe(true);
			expect((await reservations.find(r.Id))?.conversion).toEqual({ State: "open" });
			expect(await reservations.claim(r.Id, newGuid(), now, now - 60_000)).toEqual({});
		});

		test("an attempt cut off half-way holds its claim until the lease runs out; then a retry takes it over with the account to undo", async () => {
			const r = await reservation();
			const cutOff = newGuid();
			const orphan = newGuid();
			const claimedAt = Date.now();
			await reservations.claim(r.Id, cutOff, claimedAt, claimedAt - 60_000);
			await reservations.recordAccount(r.Id, cutOff, orphan, claimedAt);
			// Within the lease: the attempt may be alive, so nobody else gets it.
			expect(await reservations.claim(r.Id, newGuid(), claimedAt + 1000, claimedAt + 1000 - 60_000)).toBeUndefined();
			// After it: one retry of many takes it over, and learns which account to undo.
			const later = claimedAt + 120_000;
			const retries = Array.from({ length: 5 }, () => newGuid());
			const claims = await Promise.all(retries.map(a => reservations.claim(r.Id, a, later, later - 60_000)));
			expect(claims.filter(Boolean)).toEqual([{ staleUserId: orphan }]);
			const retry = retries[claims.findIndex(Boolean)];
			// The cut-off attempt, should it wake, can no longer write.
			expect(await reservations.renew(r.Id, cutOff, later)).toBe(false);
			expect(await reservations.finish(r.Id, cutOff, later)).toBe(false);
			// A retry cut off while undoing leaves the same account named, for the next retry to undo again.
			expect(await reservations.claim(r.Id, newGuid(), later + 120_000, later + 60_000)).toEqual({
				staleUserId: orphan,
			});
			expect(await reservations.finish(r.Id, retry, later)).toBe(false);
		});

		test("imported reservations keep their conversion state", async () => {
			const open = { Id: newGuid(), Email: "a@example.org", ExpirationDate: 10, CreatedTime: 1 };
			const done = { Id: newGuid(), Email: "b@example.org", ExpirationDate: 10, CreatedTime: 1 };
			await reservations.importReservation(open, undefined);
			await reservations.importReservation(done, 5);
			await reservations.importReservation(done, undefined);
			expect((await reservations.find(open.Id))?.conversion).toEqual({ State: "open" });
			expect((await reservations.find(done.Id))?.conversion).toEqual({ State: "done", ConvertedTime: 5 });
			expect(await reservations.find(open.Id)).toEqual({ ...open, conversion: { State: "open" } });
			expect(await reservationsStore.count("user_reservations", { id: done.Id })).toBe(1);
			expect(await reservations.find(newGuid())).toBeUndefined();
		});

		test("the claims cut off are those pending and not heard of since, at most as many as asked; open and done ones are not", async () => {
			const [a, b, fresh, finished, open] = [
				await reservation(),
				await reservation(),
				await reservation(),
				await reservation(),
				await reservation(),
			];
			for (const [r, heard] of [
				[a, 1000],
				[b, 1200],
				[fresh, 5000],
				[finished, 1100],
			] as const) {
				const attempt = newGuid();
				await reservations.claim(r.Id, attempt, heard, heard - 60_000);
				if (r === finished) await reservations.finish(r.Id, attempt, heard);
			}
			expect((await reservations.cutOff(1500)).sort()).toEqual([a.Id, b.Id].sort());
			expect(await reservations.cutOff(1500, 1)).toHaveLength(1);
			expect(await reservations.cutOff(999)).toEqual([]);
			expect(await reservations.cutOff(1500)).not.toContain(open.Id);
		});

		test("forgetting a user removes the open reservations they made; pending, converted and others' stay", async () => {
			const inviter = newGuid();
			const [open, another, pending, done, others] = [
				await reservation({ InvitedBy: inviter }),
				await reservation({ InvitedBy: inviter }),
				await reservation({ InvitedBy: inviter }),
				await reservation({ InvitedBy: inviter }),
				await reservation(),
			];
			const now = Date.now();
			await reservations.claim(pending.Id, newGuid(), now, now - 60_000);
			const attempt = newGuid();
			await reservations.claim(done.Id, attempt, now, now - 60_000);
			await reservations.finish(done.Id, attempt, now);
			expect(await reservations.removeOpenOf(inviter)).toBe(2);
			expect(await reservations.find(open.Id)).toBeUndefined();
			expect(await reservations.find(another.Id)).toBeUndefined();
			expect((await reservations.find(pending.Id))?.conversion.State).toBe("pending");
			expect((await reservations.find(done.Id))?.conversion.State).toBe("done");
			expect((await reservations.find(others.Id))?.conversion.State).toBe("open");
			expect(await reservations.removeOpenOf(inviter)).toBe(0);
		});
	});
});

describe("the former embedded store's systems collections", () => {
	test("are imported once through the repositories: ids, counter, conversions and devices kept; a map without its work item dropped", async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-systems-legacy-"));
		try {
			const write = async (collection: string, docs: Array<Record<string, unknown>>) => {
				const store = new Datastore({ filename: path.join(dir, `${collection}.db`) });
				await store.loadDatabaseAsync();
				await store.insertAsync(docs);
			};
			const item = newGuid();
			const reservation = newGuid();
			const userId = newGuid();
			await write("systems", [{ _id: "7", SystemId: 7, Name: "Jira", CreatedTime: 1 }]);
			await write("counters", [{ _id: "systems", Value: 8 }]);
			await write("workItems", [
				{ _id: item, ShortDescription: "Door", SystemId: 7, ReferenceId: "J-1", CreatedTime: 2 },
			]);
			await write("serviceMaps", [
				{ _id: newGuid(), SystemId: 7, ReferenceId: "J-1", WorkItemId: item, MapKey: "7:J-1", CreatedTime: 3 },
				{ _id: newGuid(), SystemId: 7, ReferenceId: "J-2", WorkItemId: newGuid(), MapKey: "7:J-2", CreatedTime: 4 },
			]);
			await write("devices", [
				{ _id: newGuid(), UserId: userId, DeviceToken: "tok", DeviceKey: "x", Platform: "iOS", CreatedTime: 5 },
			]);
			await write("reservations", [
				{
					_id: reservation,
					Email: "a@example.org",
					InvitedBy: userId,
					Converted: true,
					ConvertedTime: 9,
					ExpirationDate: 10,
					CreatedTime: 6,
				},
			]);
			await write("media", [
				{
					_id: newGuid(),
					Kind: "Avatar",
					UserId: userId,
					ContentType: "image/png",
					Size: 3,
					ETag: "e",
					CreatedTime: 7,
				},
			]);

			const db = new SqliteDatabase(undefined);
			const systems = new SystemsRepository(db);
			const devices = new DevicesRepository(db);
			const reservations = new ReservationsRepository(db);
			const media = new MediaRepository(db);
			await migrate(db, "systems", systemsMigrations);
			await migrate(db, "devices", devicesMigrations);
			await migrate(db, "reservations", reservationsMigrations);
			await migrate(db, "media", mediaMigrations);
			expect(await importLegacyOnce(db, dir, "systems", systems, systemsLegacy)).toBe(5);
			expect(await importLegacyOnce(db, dir, "systems", systems, systemsLegacy)).toBe(0);
			expect(await importLegacyOnce(db, dir, "devices", devices, devicesLegacy)).toBe(1);
			expect(await importLegacyOnce(db, dir, "reservations", reservations, reservationsLegacy)).toBe(1);
			expect(await importLegacyOnce(db, dir, "media", media, mediaLegacy)).toBe(1);

			expect(await systems.findSystem(7)).toEqual({ Id: 7, Name: "Jira", CreatedTime: 1 });
			expect((await systems.createSystem({ Name: "Next", CreatedTime: 8 })).Id).toBe(9);
			expect((await systems.maps({ SystemId: 7 }, { Offset: 0, Limit: 10 })).map(m => m.ReferenceId)).toEqual(["J-1"]);
			expect(await devices.ofUser(userId, { Offset: 0, Limit: 10 })).toMatchObject([
				{ DeviceToken: "tok", Platform: "iOS" },
			]);
			expect((await reservations.find(reservation))?.conversion).toEqual({ State: "done", ConvertedTime: 9 });
			expect(await media.currentAvatar(userId)).toMatchObject({ Kind: "Avatar", ETag: "e" });
			await db.close();
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});
