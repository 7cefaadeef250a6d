import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Datastore from "@seald-io/nedb";
import { graphLegacy } from "../services/graph/graph.legacy";
import { GraphRepository } from "../services/graph/graph.repository";
import { GraphContract } from "../services/graph/graph.contract";
import { graphMongoMigrations, MongoGraphRepository } from "../services/graph/graph.mongo";
import { importLegacyOnce } from "../shared/persistence/legacy";
import { graphMigrations } from "../services/graph/graph.schema";
import { MongoStore } from "../shared/persistence/mongo/store";
import { Page } from "../shared/persistence/sql/paging";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

/** Offset pages and cursor pages of one list read the same records. */
async function expectCursorAgrees<T>(
	read: (page: Page) => Promise<T[]>,
	cursorOf: (record: T) => string,
	total: number,
): Promise<void> {
	const all = await read({ Offset: 0, Limit: 1000 });
	expect(all).toHaveLength(total);
	const byOffset = await read({ Offset: 10, Limit: 10 });
	const byCursor = await read({ Offset: 0, Limit: 10, AfterId: cursorOf(all[9]) });
	expect(byCursor).toEqual(byOffset);
	expect(byCursor).toEqual(all.slice(10, 20));
	expect(await read({ Offset: 2, Limit: 3, AfterId: cursorOf(all[4]) })).toEqual(all.slice(7, 10));
	expect(await read({ Offset: 0, Limit: 0 })).toEqual([]);
	await expect(read({ Offset: 0, Limit: 10, AfterId: newGuid() })).rejects.toMatchObject({ code: 400 });
}

/** The former embedded store is imported into SQL engines only (at the embedded store's first start). */
const onSql = (engine: string) => (engine === "mongodb" ? test.skip : test);
/** States only MongoDB's writes without a transaction can be left in (by a crash between two writes). */
const onMongo = (engine: string) => (engine === "mongodb" ? test : test.skip);

describe.each(storeEngines)("the graph repository on %s", engine => {
	let mongo: MongoStore | undefined;
	/** A collection of the MongoDB store, for writing the states tests start from. */
	const collection = (name: string) => mongo!.collection<{ _id: string; [field: string]: unknown }>(name);
	const under = onStore<GraphContract>(engine, {
		domain: "graph",
		sql: { migrations: graphMigrations, create: db => new GraphRepository(db) },
		mongo: {
			migrations: graphMongoMigrations,
			create: store => {
				mongo = store;
				return new MongoGraphRepository(store);
			},
		},
	});

	/**
	 * The sides two users see: each user's list of connections (the stored layout differs: a row per side on SQL, a
	 * document per pair on MongoDB).
	 */
	const sidesOf = async (a: string, b: string) =>
		(await under.repo.connections.of(a, { Offset: 0, Limit: 1000 })).length +
		(await under.repo.connections.of(b, { Offset: 0, Limit: 1000 })).length;

	/**
	 * Writes a record straight into the store, as an older store (or a crash) left it: its columns, or on MongoDB its
	 * document (`id` as `_id`).
	 */
	const writeRecord = async (table: string, record: Record<string, string | number | boolean>) => {
		const { id, ...fields } = record;
		if (!under.sql) return void (await collection(table).insertOne({ _id: String(id), ...fields }));
		const columns = Object.keys(record);
		const values = Object.values(record).map(value => (typeof value === "boolean" ? Number(value) : value));
		await under.sql.run(
			`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
			values,
		);
	};

	describe("connections", () => {
		test("a connection is both sides; a duplicate either way round is refused; disconnecting removes both", async () => {
			const [ann, bob] = [newGuid(), newGuid()];
			const pair = await under.repo.connections.connect(ann, bob, true, 1000);
			expect(pair).toEqual([
				{ Id: expect.any(String), OwnerId: ann, UserId: bob, IsFavorite: true },
				{ Id: expect.any(String), OwnerId: bob, UserId: ann, IsFavorite: false },
			]);
			expect(await under.repo.connections.connect(ann, bob, false, 2000)).toBeUndefined();
			expect(await under.repo.connections.connect(bob, ann, false, 2000)).toBeUndefined();
			expect(await sidesOf(ann, bob)).toBe(2);
			expect(await under.repo.connections.of(bob, { Offset: 0, Limit: 10 })).toEqual([pair![1]]);

			expect(await under.repo.connections.disconnect(pair![0].Id, bob)).toBeUndefined();
			expect(await under.repo.connections.disconnect(pair![0].Id, ann)).toEqual(pair![0]);
			expect(await sidesOf(ann, bob)).toBe(0);
			expect(await under.repo.connections.disconnect(pair![0].Id, ann)).toBeUndefined();
		});

		test("both sides disconnecting at once remove the pair once (one of them answers for it), without a deadlock", async () => {
			const [a, b] = [newGuid(), newGuid()];
			const [ab, ba] = (await under.repo.connections.connect(a, b, false, 1))!;
			const removed = await Promise.all(
				Array.from({ length: 10 }, (_, i) =>
					i % 2 ? under.repo.connections.disconnect(ab.Id, a) : under.repo.connections.disconnect(ba.Id, b),
				),
			);
			expect(removed.filter(Boolean)).toHaveLength(1);
			expect(await sidesOf(a, b)).toBe(0);
		});

		test("10 concurrent identical A→B make one pair", async () => {
			const [a, b] = [newGuid(), newGuid()];
			const made = await Promise.all(
				Array.from({ length: 10 }, () => under.repo.connections.connect(a, b, false, 1000)),
			);
			expect(made.filter(Boolean)).toHaveLength(1);
			expect(await sidesOf(a, b)).toBe(2);
		});

		test("10 concurrent A→B plus 10 B→A make one pair", async () => {
			const [a, b] = [newGuid(), newGuid()];
			const made = await Promise.all(
				Array.from({ length: 20 }, (_, i) =>
					i % 2 ? under.repo.connections.connect(a, b, false, 1000) : under.repo.connections.connect(b, a, false, 1000),
				),
			);
			expect(made.filter(Boolean)).toHaveLength(1);
			expect(await sidesOf(a, b)).toBe(2);
		});

		// Half pairs come only from an older store, imported into SQL (MongoDB keeps a pair in one document).
		onSql(engine)("a half pair left by an older store: the owner's retry is refused and repairs it", async () => {
			const [a, b] = [newGuid(), newGuid()];
			await writeRecord("connections", { id: newGuid(), owner_id: a, user_id: b, is_favorite: false, created_time: 1 });
			expect(await under.repo.connections.connect(a, b, false, 2)).toBeUndefined();
			expect(await sidesOf(a, b)).toBe(2);
		});

		onSql(engine)("the other side's retry completes a half pair and returns both", async () => {
			const [a, b] = [newGuid(), newGuid()];
			const old = newGuid();
			await writeRecord("connections", { id: old, owner_id: a, user_id: b, is_favorite: true, created_time: 1 });
			const pair = await under.repo.connections.connect(b, a, false, 2);
			expect(pair).toEqual([
				expect.objectContaining({ OwnerId: b, UserId: a }),
				{ Id: old, OwnerId: a, UserId: b, IsFavorite: true },
			]);
		});

		test("pages by offset and by cursor (a Connection's Id) agree", async () => {
			const owner = newGuid();
			for (let i = 0; i < 25; i++) await under.repo.connections.connect(owner, newGuid(), i % 3 === 0, 100 + (i % 4));
			await expectCursorAgrees(
				page => under.repo.connections.of(owner, page),
				c => c.Id,
				25,
			);
		});

		test("importing a side and its mirror ends in one whole pair whatever the order, keeping the stored Ids", async () => {
			const [a, b] = [newGuid(), newGuid()];
			const [ab, ba] = [newGuid(), newGuid()];
			await under.repo.connections.importSide({ Id: ab, OwnerId: a, UserId: b, IsFavorite: true, CreatedTime: 5 });
			await under.repo.connections.importSide({ Id: ba, OwnerId: b, UserId: a, IsFavorite: false, CreatedTime: 5 });
			await under.repo.connections.importSide({ Id: ab, OwnerId: a, UserId: b, IsFavorite: true, CreatedTime: 5 });
			expect(await under.repo.connections.of(a, { Offset: 0, Limit: 10 })).toEqual([
				{ Id: ab, OwnerId: a, UserId: b, IsFavorite: true },
			]);
			expect(await under.repo.connections.of(b, { Offset: 0, Limit: 10 })).toEqual([
				{ Id: ba, OwnerId: b, UserId: a, IsFavorite: false },
			]);
		});
	});

	describe("networks and members", () => {
		const membersOf = (networkId: string) => under.count("network_members", { network_id: networkId });

		test("a network starts with its owner as its one member", async () => {
			const owner = newGuid();
			const network = await under.repo.networks.create("Chess", owner, 1000);
			expect(network).toEqual({
				Id: expect.any(String),
				Name: "Chess",
				OwnerId: owner,
				NumberOfMembers: 1,
				IsOpen: false,
			});
			expect(await under.repo.networks.find(network.Id)).toEqual(network);
			expect(await under.repo.networks.members(network.Id, { Offset: 0, Limit: 10 })).toEqual([
				{ Id: expect.any(String), NetworkId: network.Id, UserId: owner, CreatedTime: 1000 },
			]);
			expect(await under.repo.networks.findMany([network.Id, newGuid()])).toEqual([network]);
		});

		test("10 concurrent identical joins make one member; NumberOfMembers stays the number of member rows", async () => {
			const network = await under.repo.networks.create("Crowd", newGuid(), 1);
			const user = newGuid();
			const joined = await Promise.all(
				Array.from({ length: 10 }, () => under.repo.networks.addMember(network.Id, user, 2)),
			);
			expect(joined.filter(Boolean)).toHaveLength(1);
			expect(await membersOf(network.Id)).toBe(2);
			expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(2);

			const others = Array.from({ length: 10 }, () => newGuid());
			await Promise.all([...others, ...others].map(u => under.repo.networks.addMember(network.Id, u, 3)));
			expect(await membersOf(network.Id)).toBe(12);
			expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(12);

			const left = await Promise.all(
				Array.from({ length: 10 }, () => under.repo.networks.removeMember(network.Id, user)),
			);
			expect(left.filter(Boolean)).toHaveLength(1);
			expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(11);
			expect(await membersOf(network.Id)).toBe(11);
		});

		test("joining a network that is not there is a 404 and writes nothing", async () => {
			const missing = newGuid();
			await expect(under.repo.networks.addMember(missing, newGuid(), 1)).rejects.toMatchObject({ code: 404 });
			expect(await membersOf(missing)).toBe(0);
		});

		test("members page by offset and by cursor (the member's UserId) agree", async () => {
			const network = await under.repo.networks.create("Big", newGuid(), 1);
			for (let i = 0; i < 24; i++) await under.repo.networks.addMember(network.Id, newGuid(), 10 + (i % 5));
			await expectCursorAgrees(
				page => under.repo.networks.members(network.Id, page),
				m => m.UserId,
				25,
			);
		});

		test("a user's networks page by offset and by cursor (a Network's Id) agree", async () => {
			const user = newGuid();
			for (let i = 0; i < 25; i++) {
				const network = await under.repo.networks.create(`N${i}`, newGuid(), 1);
				await under.repo.networks.addMember(network.Id, user, 10 + (i % 3));
			}
			await expectCursorAgrees(
				page => under.repo.networks.networksOf(user, page),
				n => n.Id,
				25,
			);
		});

		test("importing recounts: a network counts the members imported, once however often run; orphans are dropped", async () => {
			const id = newGuid();
			const members = [newGuid(), newGuid(), newGuid()].map((u, i) => ({
				Id: newGuid(),
				NetworkId: id,
				UserId: u,
				CreatedTime: i,
			}));
			for (let run = 0; run < 2; run++) {
				await under.repo.networks.importNetwork({
					Id: id,
					Name: "Old",
					OwnerId: members[0].UserId,
					NumberOfMembers: 7,
					CreatedTime: 0,
				});
				for (const member of members) await under.repo.networks.importMember(member);
			}
			await under.repo.networks.importMember({
				Id: newGuid(),
				NetworkId: newGuid(),
				UserId: newGuid(),
				CreatedTime: 1,
			});
			expect((await under.repo.networks.find(id))?.NumberOfMembers).toBe(3);
			expect(await under.repo.networks.members(id, { Offset: 0, Limit: 10 })).toEqual(members);
		});
	});

	describe("blocks and mutes", () => {
		test("an entry is one row however often made at once, keeping its first time; removing returns it; between sees both ways", async () => {
			const [me, other] = [newGuid(), newGuid()];
			const made = await Promise.all(Array.from({ length: 10 }, (_, i) => under.repo.blocks.add(me, other, 100 + i)));
			expect(new Set(made.map(row => row.CreatedTime)).size).toBe(1);
			expect(await under.repo.blocks.of(me, { Offset: 0, Limit: 10 })).toEqual([
				{ OwnerId: me, UserId: other, CreatedTime: made[0].CreatedTime },
			]);
			expect([await under.repo.blocks.between(me, other), await under.repo.blocks.between(other, me)]).toEqual([
				true,
				true,
			]);
			expect(await under.repo.mutes.between(me, other)).toBe(false);
			expect(await under.repo.blocks.remove(me, other)).toEqual(made[0]);
			expect(await under.repo.blocks.remove(me, other)).toBeUndefined();
			expect(await under.repo.blocks.between(me, other)).toBe(false);
		});

		test("pages by offset and by cursor (the listed user's id) agree", async () => {
			const me = newGuid();
			for (let i = 0; i < 25; i++) await under.repo.mutes.add(me, newGuid(), 1000 + (i % 5));
			await expectCursorAgrees(
				page => under.repo.mutes.of(me, page),
				row => row.UserId,
				25,
			);
		});

		test("forgetUser removes the user's entries and those about them, and no other", async () => {
			const [me, a, b] = [newGuid(), newGuid(), newGuid()];
			await under.repo.blocks.add(me, a, 1);
			await under.repo.blocks.add(b, me, 2);
			await under.repo.blocks.add(a, b, 3);
			expect(await under.repo.blocks.forgetUser(me)).toBe(2);
			expect(await under.repo.blocks.forgetUser(me)).toBe(0);
			expect([await under.repo.blocks.between(me, a), await under.repo.blocks.between(a, b)]).toEqual([false, true]);
		});
	});

	describe("subscriptions", () => {
		test("a subscription is one row however often made at once; removing returns it", async () => {
			const [fan, star] = [newGuid(), newGuid()];
			const made = await Promise.all(
				Array.from({ length: 10 }, () =>
					under.repo.subscriptions.add(
						{ SubscriberId: fan, SubscribedToId: star, SubscribedToExternalName: "Star" },
						1,
					),
				),
			);
			expect(made.filter(Boolean)).toEqual([
				{ SubscriberId: fan, SubscribedToId: star, SubscribedToExternalName: "Star" },
			]);
			expect(await under.repo.subscriptions.remove(fan, star)).toEqual({
				SubscriberId: fan,
				SubscribedToId: star,
				SubscribedToExternalName: "Star",
			});
			expect(await under.repo.subscriptions.remove(fan, star)).toBeUndefined();
		});

		test("pages by offset and by cursor (the SubscribedToId) agree", async () => {
			const fan = newGuid();
			for (let i = 0; i < 25; i++)
				await under.repo.subscriptions.add({ SubscriberId: fan, SubscribedToId: newGuid() }, 10 + (i % 4));
			await expectCursorAgrees(
				page => under.repo.subscriptions.of(fan, page),
				s => s.SubscribedToId,
				25,
			);
		});
	});

	describe("what User records embed, and a user's audience", () => {
		test("embedFor cuts each list at the limit per user in the query, oldest first, grouped by user", async () => {
			const [busy, quiet, nobody] = [newGuid(), newGuid(), newGuid()];
			for (let i = 0; i < 105; i++) {
				await under.repo.connections.connect(busy, newGuid(), false, 1000 + i);
				await under.repo.subscriptions.add({ SubscriberId: busy, SubscribedToId: newGuid() }, 1000 + i);
			}
			const networks = [];
			for (let i = 0; i < 103; i++) networks.push(await under.repo.networks.create(`E${i}`, busy, 1000 + i));
			await under.repo.connections.connect(quiet, busy, false, 5000);
			await under.repo.networks.addMember(networks[0].Id, quiet, 5000);

			const embedded = await under.repo.embedFor([busy, quiet, nobody], 100);
			const busyConnections = embedded.connections.filter(c => c.OwnerId === busy);
			expect(busyConnections).toEqual(await under.repo.connections.of(busy, { Offset: 0, Limit: 100 }));
			expect(embedded.connections.filter(c => c.OwnerId === quiet).map(c => c.UserId)).toEqual([busy]);
			expect(embedded.connections).toHaveLength(101);
			expect(embedded.networks.filter(n => n.MemberId === busy).map(n => n.Id)).toEqual(
				networks.slice(0, 100).map(n => n.Id),
			);
			expect(embedded.networks.filter(n => n.MemberId === quiet)).toEqual([
				{ ...networks[0], NumberOfMembers: 2, MemberId: quiet },
			]);
			expect(embedded.subscriptions).toEqual(await under.repo.subscriptions.of(busy, { Offset: 0, Limit: 100 }));

			// The cut is the query's: asking for 3 returns 3 per user, not everything.
			const small = await under.repo.embedFor([busy, quiet], 3);
			expect(small.connections.filter(c => c.OwnerId === busy)).toEqual(busyConnections.slice(0, 3));
			expect(small.connections).toHaveLength(4);
			expect(small.networks).toHaveLength(4);
			expect(small.subscriptions).toHaveLength(3);
			expect(await under.repo.embedFor([], 100)).toEqual({ connections: [], networks: [], subscriptions: [] });
		});

		test("audienceOf: whom a user is connected to or subscribes to, and their networks", async () => {
			const [me, friend, star] = [newGuid(), newGuid(), newGuid()];
			await under.repo.connections.connect(me, friend, false, 1);
			await under.repo.subscriptions.add({ SubscriberId: me, SubscribedToId: star }, 2);
			const network = await under.repo.networks.create("Mine", me, 3);
			const audience = await under.repo.audienceOf(me);
			expect(audience.people.sort()).toEqual([friend, star].sort());
			expect(audience.networks).toEqual([network.Id]);
			expect(await under.repo.audienceOf(newGuid())).toEqual({ people: [], networks: [], hidden: [], muted: [] });
		});

		test("audienceOf: whom a user hides (blocks either way, once each) and mutes", async () => {
			const [me, blocked, blocker, both, muted] = [newGuid(), newGuid(), newGuid(), newGuid(), newGuid()];
			await under.repo.blocks.add(me, blocked, 1);
			await under.repo.blocks.add(blocker, me, 2);
			await under.repo.blocks.add(me, both, 3);
			await under.repo.blocks.add(both, me, 4);
			await under.repo.mutes.add(me, muted, 5);
			const audience = await under.repo.audienceOf(me);
			expect([audience.hidden.sort(), audience.muted]).toEqual([[blocked, blocker, both].sort(), [muted]]);
			// A mute is the muter's alone: the muted user hides nobody.
			expect(await under.repo.audienceOf(muted)).toMatchObject({ hidden: [], muted: [] });
			expect((await under.repo.audienceOf(blocked)).hidden).toEqual([me]);
		});

		test("isMemberOrConnection: a network's member and a connection may use it as a post's context; a stranger may not", async () => {
			const [me, friend, stranger, star] = [newGuid(), newGuid(), newGuid(), newGuid()];
			await under.repo.connections.connect(me, friend, false, 1);
			await under.repo.subscriptions.add({ SubscriberId: me, SubscribedToId: star }, 2);
			const network = await under.repo.networks.create("Closed", me, 3);
			expect(await under.repo.isMemberOrConnection(me, network.Id)).toBe(true);
			expect(await under.repo.isMemberOrConnection(me, friend)).toBe(true);
			expect(await under.repo.isMemberOrConnection(friend, me)).toBe(true);
			expect(await under.repo.isMemberOrConnection(stranger, network.Id)).toBe(false);
			expect(await under.repo.isMemberOrConnection(stranger, me)).toBe(false);
			expect(await under.repo.isMemberOrConnection(friend, network.Id)).toBe(false);
			// Subscribing is following, not a connection.
			expect(await under.repo.isMemberOrConnection(me, star)).toBe(false);
		});

		test("a membership of no network (what a crash of CreateNetwork can leave on MongoDB) is left out of a user's networks", async () => {
			const user = newGuid();
			const kept = await under.repo.networks.create("Kept", newGuid(), 1);
			await writeRecord("network_members", { id: newGuid(), network_id: newGuid(), user_id: user, created_time: 5 });
			await under.repo.networks.addMember(kept.Id, user, 6);
			expect(await under.repo.networks.networksOf(user, { Offset: 0, Limit: 1 })).toEqual([
				{ ...kept, NumberOfMembers: 2 },
			]);
			expect((await under.repo.embedFor([user], 10)).networks).toEqual([
				{ ...kept, NumberOfMembers: 2, MemberId: user },
			]);
		});
	});

	describe("forgetting a user (deleting an account)", () => {
		/** An id that sorts before (`0`) or after (`f`) the ids made with `8`: both lock orders of a pair's sides. */
		const idFrom = (first: string) => first + newGuid().slice(1);

		test("forgetUser: connections (both sides), subscriptions both ways, memberships go; again, nothing", async () => {
			const [me, lower, upper, star, fan] = [idFrom("8"), idFrom("0"), idFrom("f"), newGuid(), newGuid()];
			await under.repo.connections.connect(me, lower, false, 1);
			await under.repo.connections.connect(upper, me, true, 2);
			await under.repo.connections.connect(lower, upper, false, 3);
			const mine = await under.repo.networks.create("Mine", me, 4);
			await under.repo.networks.addMember(mine.Id, lower, 5);
			const theirs = await under.repo.networks.create("Theirs", upper, 6);
			await under.repo.networks.addMember(theirs.Id, me, 7);
			await under.repo.subscriptions.add({ SubscriberId: me, SubscribedToId: star }, 8);
			await under.repo.subscriptions.add({ SubscriberId: me, SubscribedToId: theirs.Id }, 9);
			await under.repo.subscriptions.add({ SubscriberId: fan, SubscribedToId: me }, 10);
			await under.repo.subscriptions.add({ SubscriberId: fan, SubscribedToId: star }, 11);
			await under.repo.blocks.add(me, star, 12);
			await under.repo.blocks.add(fan, me, 13);
			await under.repo.mutes.add(fan, me, 14);
			await under.repo.mutes.add(fan, star, 15);

			const forgotten = await under.repo.forgetUser(me);
			expect({
				...forgotten,
				connected: forgotten.connected.sort(),
				subscribedTo: forgotten.subscribedTo.sort(),
				networks: forgotten.networks.sort(),
			}).toEqual({
				removed: 4 + 3 + 2 + 2 + 1,
				connected: [lower, upper].sort(),
				subscribedTo: [star, theirs.Id].sort(),
				subscribers: [fan],
				networks: [mine.Id, theirs.Id].sort(),
			});
			expect(await under.repo.audienceOf(me)).toEqual({ people: [], networks: [], hidden: [], muted: [] });
			expect(await under.repo.connections.of(lower, { Offset: 0, Limit: 10 })).toEqual([
				expect.objectContaining({ OwnerId: lower, UserId: upper }),
			]);
			// The blocks and mutes of and about the user went; the fan's mute of another stays.
			expect(await under.repo.audienceOf(fan)).toEqual({ people: [star], networks: [], hidden: [], muted: [star] });
			expect(await under.repo.audienceOf(star)).toMatchObject({ hidden: [] });
			const readers = await under.repo.readersOf([me, upper], [mine.Id, theirs.Id], 10);
			expect(readers.follows[me]).toEqual([]);
			expect(readers.follows[upper]).toEqual([lower]);
			expect(readers.members).toEqual({ [mine.Id]: [lower], [theirs.Id]: [upper] });
			// The network the user owns stays, with its other members; every count is its member rows again.
			expect(await under.repo.networks.find(mine.Id)).toEqual({ ...mine, NumberOfMembers: 1 });
			expect((await under.repo.networks.find(theirs.Id))?.NumberOfMembers).toBe(1);
			expect(await under.repo.isMemberOrConnection(lower, me)).toBe(false);

			expect(await under.repo.forgetUser(me)).toEqual({
				removed: 0,
				connected: [],
				subscribedTo: [],
				subscribers: [],
				networks: [],
			});
			expect(await under.repo.forgetUser(newGuid())).toMatchObject({ removed: 0 });
		});

		test("each part forgets on its own; a membership of no network goes too", async () => {
			const [me, a, b] = [idFrom("8"), idFrom("0"), idFrom("f")];
			await under.repo.connections.connect(me, a, false, 1);
			await under.repo.connections.connect(b, me, false, 2);
			const forgotten = await under.repo.connections.forgetUser(me);
			expect({ ...forgotten, others: forgotten.others.sort() }).toEqual({ removed: 4, others: [a, b].sort() });
			expect(await sidesOf(a, b)).toBe(0);
			expect(await under.repo.connections.forgetUser(me)).toEqual({ removed: 0, others: [] });

			await under.repo.subscriptions.add({ SubscriberId: me, SubscribedToId: a }, 3);
			await under.repo.subscriptions.add({ SubscriberId: b, SubscribedToId: me }, 4);
			expect(await under.repo.subscriptions.forgetUser(me)).toEqual({ removed: 2, targets: [a], subscribers: [b] });
			expect(await under.repo.subscriptions.forgetUser(me)).toEqual({ removed: 0, targets: [], subscribers: [] });

			const network = await under.repo.networks.create("Kept", a, 5);
			await under.repo.networks.addMember(network.Id, me, 6);
			const orphan = newGuid();
			await writeRecord("network_members", { id: newGuid(), network_id: orphan, user_id: me, created_time: 7 });
			expect((await under.repo.networks.forgetUser(me)).sort()).toEqual([network.Id, orphan].sort());
			expect(await under.count("network_members", { user_id: me })).toBe(0);
			expect(await under.repo.networks.find(network.Id)).toEqual({ ...network, NumberOfMembers: 1 });
			expect(await under.repo.networks.forgetUser(me)).toEqual([]);
		});

		test("forgets at once, other sides disconnecting: each record removed once, no deadlock", async () => {
			const me = idFrom("8");
			const friends = [
				...Array.from({ length: 4 }, () => idFrom("0")),
				...Array.from({ length: 4 }, () => idFrom("f")),
			];
			const sides = [];
			for (const [i, friend] of friends.entries())
				sides.push((await under.repo.connections.connect(friend, me, false, i))![0]);
			const networks = [];
			for (let i = 0; i < 4; i++) {
				const network = await under.repo.networks.create(`C${i}`, newGuid(), 10 + i);
				await under.repo.networks.addMember(network.Id, me, 20 + i);
				networks.push(network);
			}
			for (const friend of friends)
				await under.repo.subscriptions.add({ SubscriberId: friend, SubscribedToId: me }, 30);

			const [forgotten, disconnected] = await Promise.all([
				Promise.all(Array.from({ length: 5 }, () => under.repo.forgetUser(me))),
				Promise.all(sides.map(side => under.repo.connections.disconnect(side.Id, side.OwnerId))),
			]);
			const removed = forgotten.reduce((sum, f) => sum + f.removed, 0);
			expect(removed + 2 * disconnected.filter(Boolean).length).toBe(2 * friends.length + friends.length + 4);
			expect(forgotten.flatMap(f => f.networks).sort()).toEqual(networks.map(n => n.Id).sort());
			expect(await under.repo.audienceOf(me)).toEqual({ people: [], networks: [], hidden: [], muted: [] });
			for (const network of networks) expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(1);
		});
	});

	describe("what a crash between two writes leaves, repaired by the same call retried", () => {
		onMongo(engine)("a join whose count was not written: the join retried is refused and recounts", async () => {
			const network = await under.repo.networks.create("Counted", newGuid(), 1);
			const user = newGuid();
			await under.repo.networks.addMember(network.Id, user, 2);
			await collection("networks").updateOne({ _id: network.Id }, { $set: { number_of_members: 7 } });
			expect(await under.repo.networks.addMember(network.Id, user, 3)).toBeUndefined();
			expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(2);
			await collection("networks").updateOne({ _id: network.Id }, { $set: { number_of_members: 7 } });
			expect(await under.repo.networks.removeMember(network.Id, newGuid())).toBe(false);
			expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(2);
		});

		onMongo(engine)(
			"a join cut off after its membership, before its count: readers count the members, and a mark older than the lease is repaired",
			async () => {
				const network = await under.repo.networks.create("Marked", newGuid(), 1);
				const user = newGuid();
				await under.repo.networks.addMember(network.Id, user, 2);
				// What the kill leaves: the network marked by a join whose count was never written.
				await collection("networks").updateOne(
					{ _id: network.Id },
					{ $set: { number_of_members: 1, counting: 1, counting_since: Date.now() } },
				);
				expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(2);
				expect((await under.repo.networks.findMany([network.Id]))[0].NumberOfMembers).toBe(2);
				expect((await under.repo.networks.networksOf(user, { Offset: 0, Limit: 10 }))[0].NumberOfMembers).toBe(2);
				expect(await collection("networks").findOne({ _id: network.Id })).toMatchObject({
					number_of_members: 1,
					counting: 1,
				});

				await collection("networks").updateOne(
					{ _id: network.Id },
					{ $set: { counting_since: Date.now() - 3_600_000 } },
				);
				expect((await under.repo.networks.find(network.Id))?.NumberOfMembers).toBe(2);
				expect(await collection("networks").findOne({ _id: network.Id })).toMatchObject({
					number_of_members: 2,
					counting: 0,
				});
			},
		);
	});

	onSql(engine)(
		"the former NeDB collections are imported once: whole pairs, counts equal to member rows, subscriptions kept",
		async () => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-graph-legacy-"));
			const [ann, bob, cat] = [newGuid(), newGuid(), newGuid()];
			const [networkId, connectionId] = [newGuid(), newGuid()];
			const write = async (collection: string, docs: Array<Record<string, unknown>>) => {
				const store = new Datastore({ filename: path.join(dir, `${collection}.db`) });
				await store.loadDatabaseAsync();
				await store.insertAsync(docs);
			};
			try {
				// A half pair (a crash of the former two-step write), a count that lies, and an orphan membership.
				await write("connections", [
					{
						_id: connectionId,
						OwnerId: ann,
						UserId: bob,
						IsFavorite: true,
						CreatedTime: 10,
						PairKey: `${ann}:${bob}`,
						Link: `${ann}:${bob}`,
					},
				]);
				await write("networks", [
					{ _id: networkId, Name: "Old club", OwnerId: ann, NumberOfMembers: 5, CreatedTime: 20 },
				]);
				await write("members", [
					{ _id: newGuid(), NetworkId: networkId, UserId: ann, CreatedTime: 20, MemberKey: `${networkId}:${ann}` },
					{ _id: newGuid(), NetworkId: networkId, UserId: cat, CreatedTime: 30, MemberKey: `${networkId}:${cat}` },
					{ _id: newGuid(), NetworkId: newGuid(), UserId: cat, CreatedTime: 40, MemberKey: "orphan" },
				]);
				await write("subscriptions", [
					{
						_id: newGuid(),
						SubscriberId: cat,
						SubscribedToId: ann,
						SubscribedToExternalName: "Ann",
						CreatedTime: 50,
						SubKey: `${cat}:${ann}`,
					},
				]);

				expect(await importLegacyOnce(under.sql!, dir, "graph", under.repo, graphLegacy)).toBe(6);
				expect(await importLegacyOnce(under.sql!, dir, "graph", under.repo, graphLegacy)).toBe(0);
				expect(await under.repo.connections.of(ann, { Offset: 0, Limit: 10 })).toEqual([
					{ Id: connectionId, OwnerId: ann, UserId: bob, IsFavorite: true },
				]);
				expect(await under.repo.connections.of(bob, { Offset: 0, Limit: 10 })).toEqual([
					{ Id: expect.any(String), OwnerId: bob, UserId: ann, IsFavorite: false },
				]);
				expect(await under.repo.networks.find(networkId)).toEqual({
					Id: networkId,
					Name: "Old club",
					OwnerId: ann,
					NumberOfMembers: 2,
					IsOpen: false,
				});
				expect((await under.repo.networks.networksOf(cat, { Offset: 0, Limit: 10 })).map(n => n.Id)).toEqual([
					networkId,
				]);
				expect(await under.repo.subscriptions.of(cat, { Offset: 0, Limit: 10 })).toEqual([
					{ SubscriberId: cat, SubscribedToId: ann, SubscribedToExternalName: "Ann" },
				]);
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		},
	);

	test("readersOf: a user's followers (connected or subscribed, once each), a network's members; null past the limit", async () => {
		const [star, friend, fan, both] = [newGuid(), newGuid(), newGuid(), newGuid()];
		await under.repo.connections.connect(star, friend, false, 1);
		await under.repo.connections.connect(both, star, false, 2);
		await under.repo.subscriptions.add({ SubscriberId: fan, SubscribedToId: star }, 3);
		await under.repo.subscriptions.add({ SubscriberId: both, SubscribedToId: star }, 4);
		const network = await under.repo.networks.create("Readers", friend, 5);
		await under.repo.networks.addMember(network.Id, fan, 6);
		const readers = await under.repo.readersOf([star, friend], [network.Id], 10);
		expect(readers.follows[star]?.sort()).toEqual([friend, fan, both].sort());
		expect(readers.follows[friend]).toEqual([star]);
		expect(readers.members[network.Id]?.sort()).toEqual([friend, fan].sort());
		const cut = await under.repo.readersOf([star, friend], [network.Id], 2);
		expect(cut).toEqual({
			follows: { [star]: null, [friend]: [star] },
			members: { [network.Id]: expect.arrayContaining([friend, fan]) },
		});
		expect((await under.repo.readersOf([], [network.Id], 1)).members[network.Id]).toBeNull();
	});
});
