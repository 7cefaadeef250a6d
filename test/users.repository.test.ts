import { NewUser, UsersRepository } from "../services/users/users.repository";
import { usersMigrations } from "../services/users/users.schema";
import { SessionRow, SessionsRepository } from "../services/users/sessions.repository";
import { sessionsMigrations } from "../services/users/sessions.schema";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Datastore from "@seald-io/nedb";
import { newGuid } from "../shared/wire/guid";
import { usersLegacy } from "../services/users/users.legacy";
import { sessionsLegacy } from "../services/users/sessions.legacy";
import { importLegacyOnce } from "../shared/persistence/legacy";
import { onStore, storeEngines } from "./support/engines";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { MongoUsersRepository, usersMongoMigrations } from "../services/users/users.mongo";
import { MongoSessionsRepository, sessionsMongoMigrations } from "../services/users/sessions.mongo";

let made = 0;

/** A folder holding NeDB collection files as the former embedded store wrote them. */
async function legacyFolder(collections: Record<string, object[]>): Promise<string> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-legacy-users-"));
	for (const [name, docs] of Object.entries(collections)) {
		const store = new Datastore({ filename: path.join(dir, `${name}.db`) });
		await store.loadDatabaseAsync();
		await store.insertAsync(docs);
	}
	return dir;
}

/** A new user with a unique name; fields override. */
function newUser(fields: Partial<NewUser> = {}): NewUser {
	made += 1;
	return {
		Id: newGuid(),
		UserName: `user${made}_${Date.now()}`,
		FirstName: `First${made}`,
		LastName: "Member",
		PasswordHash: "scrypt$hash",
		CreatedTime: 1000 + made,
		UpdatedTime: 1000 + made,
		...fields,
	};
}

/** What a rejected write was: its status and the field it names. */
async function failureOf(write: Promise<unknown>): Promise<{ code: number; field?: string } | undefined> {
	try {
		await write;
		return undefined;
	} catch (err) {
		const { code, data } = err as { code: number; data?: { errors?: Array<{ FieldName: string }> } };
		return { code, field: data?.errors?.[0]?.FieldName };
	}
}

/** The former embedded store is imported into SQL engines only (at the embedded store's first start). */
const onSql = (engine: string) => (engine === "mongodb" ? test.skip : test);

describe.each(storeEngines)("the users repository on %s", engine => {
	const under = onStore<RepositoryContract<UsersRepository>>(engine, {
		domain: "users",
		sql: { migrations: usersMigrations, create: db => new UsersRepository(db) },
		mongo: { migrations: usersMongoMigrations, create: store => new MongoUsersRepository(store) },
	});

	const count = (where: Record<string, string>) => under.count("users", where);

	test("a user is written with its profile and read back as its record, without credentials", async () => {
		const user = newUser({
			Email: "Ada@Example.org",
			Interests: ["poetry", "mathematics"],
			JobTitle: "",
			Cloaked: false,
		});
		const created = await under.repo.create(user);
		expect(created).toEqual({
			Id: user.Id,
			UserName: user.UserName,
			Email: "Ada@Example.org",
			FirstName: user.FirstName,
			LastName: "Member",
			Interests: ["poetry", "mathematics"],
			Roles: [],
			Cloaked: false,
			CreatedTime: user.CreatedTime,
			UpdatedTime: user.UpdatedTime,
		});
		expect(await under.repo.find(user.Id)).toEqual(created);
		expect(await under.repo.find(newGuid())).toBeUndefined();
		expect(await under.repo.account("ada@example.ORG")).toMatchObject({ Id: user.Id, PasswordHash: "scrypt$hash" });
		expect(await under.repo.account(user.UserName!.toUpperCase())).toMatchObject({ Id: user.Id });
		expect(await under.repo.account("nobody")).toBeUndefined();
	});

	test("ten concurrent identical registrations make one user; the others are 409 naming UserName", async () => {
		const name = `Racer_${Date.now()}`;
		const outcomes = await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				failureOf(under.repo.create(newUser({ UserName: i % 2 ? name : name.toLowerCase() }))),
			),
		);
		expect(outcomes.filter(o => o === undefined)).toHaveLength(1);
		expect(outcomes.filter(Boolean)).toEqual(Array.from({ length: 9 }, () => ({ code: 409, field: "UserName" })));
		expect(await count({ user_name_key: name.toLowerCase() })).toBe(1);
	});

	test("ten concurrent registrations of one e-mail address in any case make one user; the others are 409 naming Email", async () => {
		const email = `Racer${Date.now()}@Example.org`;
		const outcomes = await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				failureOf(under.repo.create(newUser({ Email: i % 2 ? email : email.toUpperCase() }))),
			),
		);
		expect(outcomes.filter(o => o === undefined)).toHaveLength(1);
		expect(outcomes.filter(Boolean)).toEqual(Array.from({ length: 9 }, () => ({ code: 409, field: "Email" })));
		expect(await count({ email_key: email.toLowerCase() })).toBe(1);
	});

	test("an update sets what is given, clears what is given empty, keeps the rest; a taken e-mail address is a 409", async () => {
		const user = await under.repo.create(
			newUser({
				Email: `keep${Date.now()}@example.org`,
				JobTitle: "Engineer",
				CompanyName: "Acme",
				Interests: ["chess"],
			}),
		);
		const updated = await under.repo.update(
			user.Id,
			{ FirstName: "Renamed", CompanyName: "", Interests: ["go"], Cloaked: true },
			5000,
		);
		expect(updated).toEqual({
			...user,
			FirstName: "Renamed",
			CompanyName: undefined,
			Interests: ["go"],
			Cloaked: true,
			UpdatedTime: 5000,
		});
		expect(updated).not.toHaveProperty("CompanyName");
		expect(await under.repo.update(user.Id, {}, 6000)).toEqual({ ...updated, UpdatedTime: 6000 });
		expect(await under.repo.update(newGuid(), { FirstName: "Nobody" }, 7000)).toBeUndefined();

		const other = await under.repo.create(newUser({ Email: `other${Date.now()}@example.org` }));
		expect(await failureOf(under.repo.update(user.Id, { Email: other.Email!.toUpperCase() }, 8000))).toEqual({
			code: 409,
			field: "Email",
		});
		const cleared = await under.repo.update(other.Id, { Email: "" }, 9000);
		expect(cleared).not.toHaveProperty("Email");
		expect(await under.repo.update(user.Id, { Email: other.Email!.toUpperCase() }, 10000)).toMatchObject({
			Email: other.Email!.toUpperCase(),
		});
		expect(await under.repo.account(other.Email!)).toMatchObject({ Id: user.Id });
	});

	test("profiles are read for the ids asked only, with their names and no credentials", async () => {
		const a = await under.repo.create(newUser({ JobTitle: "Writer" }));
		const b = await under.repo.create(newUser());
		const profiles = await under.repo.profiles([a.Id, b.Id, newGuid()]);
		expect(profiles.sort((x, y) => (x.Id === a.Id ? -1 : y.Id === a.Id ? 1 : 0))).toEqual([
			{ Id: a.Id, FirstName: a.FirstName, LastName: "Member", JobTitle: "Writer" },
			{ Id: b.Id, FirstName: b.FirstName, LastName: "Member" },
		]);
		expect(await under.repo.profiles([])).toEqual([]);
	});

	test("pages by offset and by cursor agree; an unknown cursor is a 400 on AfterId; Limit 0 is empty", async () => {
		for (let i = 0; i < 25; i++)
			await under.repo.create(newUser({ CreatedTime: 50_000 + (i % 5), UpdatedTime: 50_000 }));
		const admin = { admin: true };
		const all = await under.repo.page({ Offset: 0, Limit: 1000 }, admin);
		expect(all.length).toBeGreaterThanOrEqual(25);
		const order = [...all].sort((x, y) => x.CreatedTime - y.CreatedTime || (x.Id < y.Id ? -1 : 1));
		expect(all.map(u => u.Id)).toEqual(order.map(u => u.Id));
		const second = await under.repo.page({ Offset: 10, Limit: 10 }, admin);
		expect(await under.repo.page({ Offset: 0, Limit: 10, AfterId: all[9].Id }, admin)).toEqual(second);
		expect(await under.repo.page({ Offset: 5, Limit: 10, AfterId: all[4].Id }, admin)).toEqual(second);
		await expect(under.repo.page({ Offset: 0, Limit: 10, AfterId: newGuid() }, admin)).rejects.toMatchObject({
			code: 400,
		});
		expect(await under.repo.page({ Offset: 0, Limit: 0 }, admin)).toEqual([]);
	});

	test("cloaked users are left out for everyone but admins and themselves, in pages and cursors", async () => {
		const hidden = await under.repo.create(newUser({ Cloaked: true, CreatedTime: 90_000, UpdatedTime: 90_000 }));
		const shown = await under.repo.create(newUser({ CreatedTime: 90_001, UpdatedTime: 90_001 }));
		const ids = async (viewer: { admin: boolean; userId?: string }) =>
			(await under.repo.page({ Offset: 0, Limit: 1000 }, viewer)).map(u => u.Id);
		const ordinary = await ids({ admin: false, userId: shown.Id });
		expect(ordinary).toContain(shown.Id);
		expect(ordinary).not.toContain(hidden.Id);
		expect(await ids({ admin: false })).not.toContain(hidden.Id);
		expect(await ids({ admin: false, userId: hidden.Id })).toContain(hidden.Id);
		expect(await ids({ admin: true })).toEqual(expect.arrayContaining([hidden.Id, shown.Id]));
		// A hidden user's Id is no cursor for those who cannot see them.
		await expect(
			under.repo.page({ Offset: 0, Limit: 10, AfterId: hidden.Id }, { admin: false, userId: shown.Id }),
		).rejects.toMatchObject({ code: 400 });
		expect(await under.repo.page({ Offset: 0, Limit: 10, AfterId: hidden.Id }, { admin: true })).toEqual(
			await under.repo.page({ Offset: 0, Limit: 10, AfterId: hidden.Id }, { admin: false, userId: hidden.Id }),
		);
		const afterHidden = await under.repo.page({ Offset: 0, Limit: 1, AfterId: hidden.Id }, { admin: true });
		expect(afterHidden.map(u => u.Id)).toEqual([shown.Id]);
	});

	test("importing the former store's users writes each once, and skips a taken user name", async () => {
		const user = newUser({ Email: `imported${Date.now()}@example.org`, Roles: ["Admin"], Cloaked: true });
		expect(await under.repo.importUser(user)).toBe(true);
		expect(await under.repo.importUser(user)).toBe(false);
		expect(await under.repo.importUser({ ...user, Id: newGuid() })).toBe(false);
		expect(await under.repo.find(user.Id)).toMatchObject({ Id: user.Id, Roles: ["Admin"], Cloaked: true });
		expect(await count({ id: user.Id })).toBe(1);
	});

	onSql(engine)(
		"the former store's users collection is imported once, profile, credentials and keys included",
		async () => {
			const id = newGuid();
			const doc = {
				_id: id,
				UserName: `Legacy${Date.now()}`,
				UserNameKey: "ignored",
				Email: `Legacy${Date.now()}@Example.org`,
				FirstName: "Old",
				LastName: "Timer",
				Interests: ["history"],
				PasswordHash: "scrypt$old",
				Roles: [],
				Cloaked: true,
				CreatedTime: 123,
				UpdatedTime: 456,
				Stray: "dropped",
			};
			const dir = await legacyFolder({ users: [doc] });
			try {
				expect(await importLegacyOnce(under.sql!, dir, "users", under.repo, usersLegacy)).toBe(1);
				expect(await importLegacyOnce(under.sql!, dir, "users", under.repo, usersLegacy)).toBe(0);
				expect(await under.repo.find(id)).toEqual({
					Id: id,
					UserName: doc.UserName,
					Email: doc.Email,
					FirstName: "Old",
					LastName: "Timer",
					Interests: ["history"],
					Roles: [],
					Cloaked: true,
					CreatedTime: 123,
					UpdatedTime: 456,
				});
				expect(await under.repo.account(doc.Email.toLowerCase())).toMatchObject({ Id: id, PasswordHash: "scrypt$old" });
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		},
	);

	test("removing a user frees its user name", async () => {
		const user = await under.repo.create(newUser());
		expect(await under.repo.remove(user.Id)).toBe(true);
		expect(await under.repo.remove(user.Id)).toBe(false);
		expect(await under.repo.create(newUser({ UserName: user.UserName }))).toMatchObject({ UserName: user.UserName });
	});
});

describe.each(storeEngines)("the sessions repository on %s", engine => {
	const under = onStore<RepositoryContract<SessionsRepository>>(engine, {
		domain: "sessions",
		sql: { migrations: sessionsMigrations, create: db => new SessionsRepository(db) },
		mongo: { migrations: sessionsMongoMigrations, create: store => new MongoSessionsRepository(store) },
	});

	const session = (fields: Partial<SessionRow> = {}): SessionRow => ({
		Id: newGuid() + newGuid(),
		UserId: newGuid(),
		UserName: "ada",
		DisplayName: "Ada Lovelace",
		Roles: [],
		Persistent: false,
		TtlMs: 1000,
		CreatedTime: 10_000,
		SlidTime: 10_000,
		ExpiresTime: 11_000,
		...fields,
	});

	test("a session is opened, found, slid, and removed", async () => {
		const opened = session({ Persistent: true, Roles: ["Admin"] });
		await under.repo.open(opened);
		expect(await under.repo.find(opened.Id)).toEqual(opened);
		expect(await under.repo.find("unknown")).toBeUndefined();
		expect(await under.repo.slide(opened.Id, 10_600)).toBe(true);
		expect(await under.repo.find(opened.Id)).toEqual({ ...opened, SlidTime: 10_600, ExpiresTime: 11_600 });
		expect(await under.repo.remove(opened.Id)).toBe(true);
		expect(await under.repo.find(opened.Id)).toBeUndefined();
		expect(await under.repo.slide(opened.Id, 10_700)).toBe(false);
		expect(await under.repo.remove(opened.Id)).toBe(false);
	});

	test("all the sessions of a user end together: their keys come back, other users' sessions stay", async () => {
		const userId = newGuid();
		const [first, second, other] = [session({ UserId: userId }), session({ UserId: userId }), session()];
		for (const s of [first, second, other]) await under.repo.open(s);
		expect((await under.repo.removeAllOf(userId)).sort()).toEqual([first.Id, second.Id].sort());
		expect(await under.repo.find(first.Id)).toBeUndefined();
		expect(await under.repo.find(other.Id)).toEqual(other);
		expect(await under.repo.removeAllOf(userId)).toEqual([]);
	});

	test("expired sessions are purged, the others kept; importing one twice keeps one", async () => {
		const ended = session({ ExpiresTime: 20_000 });
		const open = session({ DisplayName: undefined, ExpiresTime: 30_000 });
		await under.repo.open(ended);
		await under.repo.importSession(open);
		await under.repo.importSession(open);
		expect(await under.repo.removeExpired(20_000)).toEqual(expect.arrayContaining([ended.Id]));
		expect(await under.repo.find(ended.Id)).toBeUndefined();
		expect(await under.repo.find(open.Id)).toEqual(open);
		expect(await under.count("sessions", { id: open.Id })).toBe(1);
	});

	onSql(engine)(
		"the former store's open sessions are imported (token hashes as keys), its ended ones dropped",
		async () => {
			const now = Date.now();
			const kept = {
				_id: newGuid() + newGuid(),
				UserId: newGuid(),
				UserName: "ada",
				DisplayName: "Ada",
				Roles: [],
				Persistent: true,
				TtlMs: 60_000,
				CreatedTime: now,
				SlidAt: now,
				ExpiresAt: now + 60_000,
			};
			const ended = { ...kept, _id: newGuid() + newGuid(), ExpiresAt: now - 1 };
			const dir = await legacyFolder({ sessions: [kept, ended] });
			try {
				await importLegacyOnce(under.sql!, dir, "sessions", under.repo, sessionsLegacy);
				expect(await under.repo.find(kept._id)).toEqual({
					Id: kept._id,
					UserId: kept.UserId,
					UserName: "ada",
					DisplayName: "Ada",
					Roles: [],
					Persistent: true,
					TtlMs: 60_000,
					CreatedTime: now,
					SlidTime: now,
					ExpiresTime: now + 60_000,
				});
				expect(await under.repo.find(ended._id)).toBeUndefined();
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		},
	);
});
