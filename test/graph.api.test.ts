import { ErrorBody, plazaForSuite, signUpAll, startPlaza, TestPlaza, WireRecord } from "./support/plaza";
import { CallCounter } from "./support/call-counter";
import { clearHeldCaches } from "../shared/cache/node-caches";

type Records = WireRecord[];

/**
 * How many connections these users have, as they are listed (stored as a row per side on SQL, a document per pair on
 * MongoDB).
 */
async function connectionsOwnedBy(plaza: TestPlaza, ...ownerIds: string[]): Promise<number> {
	const lists = await Promise.all(
		ownerIds.map(id => plaza.admin<Records>("GET", `/Users/${id}/Connections?Limit=100`)),
	);
	return lists.reduce((sum, list) => sum + list.body.length, 0);
}

describe("connections", () => {
	const {
		plaza,
		users: [ann, bob, cat],
	} = plazaForSuite({
		services: ["users"],
		users: [
			{ FirstName: "Ann", LastName: "Lee" },
			{ FirstName: "Bob", LastName: "Ray" },
			{ FirstName: "Cat", LastName: "Poe" },
		],
	});

	test("A connects to B: both records exist, the owner's first, and B sees A", async () => {
		const reply = await ann.http<Records>("POST", "/Connections", {
			OwnerId: ann.userId,
			ConnectToId: bob.userId,
			IsFavorite: true,
		});
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual([
			{
				Id: expect.stringMatching(/^[0-9a-f]{32}$/),
				OwnerId: ann.userId,
				UserId: bob.userId,
				FirstName: "Bob",
				LastName: "Ray",
				IsFavorite: true,
			},
			{
				Id: expect.stringMatching(/^[0-9a-f]{32}$/),
				OwnerId: bob.userId,
				UserId: ann.userId,
				FirstName: "Ann",
				LastName: "Lee",
				IsFavorite: false,
			},
		]);
		const bobs = await bob.http<Records>("GET", `/Users/${bob.userId}/Connections`);
		expect(bobs.body.map(c => c.UserId)).toEqual([ann.userId]);
		const bobUser = await ann.http("GET", `/Users/${bob.userId}`);
		expect((bobUser.body.Connections as Records).map(c => c.UserId)).toEqual([ann.userId]);
	});

	test("a duplicate, either way round, is 409 and adds nothing", async () => {
		const before = await connectionsOwnedBy(plaza, ann.userId, bob.userId, cat.userId);
		const again = await ann.http<ErrorBody>("POST", "/json/reply/CreateConnection", {
			OwnerId: ann.userId,
			ConnectToId: bob.userId,
		});
		const reverse = await bob.http<ErrorBody>("POST", "/Connections", { OwnerId: bob.userId, ConnectToId: ann.userId });
		for (const reply of [again, reverse]) {
			expect(reply.status).toBe(409);
			expect(reply.body.ResponseStatus.ErrorCode).toBe("AlreadyExists");
		}
		expect(await connectionsOwnedBy(plaza, ann.userId, bob.userId, cat.userId)).toBe(before);
	});

	test("bad connections: to oneself 400, to nobody 404, another type 400, as someone else 403", async () => {
		expect((await ann.http("POST", "/Connections", { OwnerId: ann.userId, ConnectToId: ann.userId })).status).toBe(400);
		expect(
			(await ann.http("POST", "/Connections", { OwnerId: ann.userId, ConnectToId: "0f8fad5bd9cb469fa16570867728950e" }))
				.status,
		).toBe(404);
		const network = await ann.http<ErrorBody>("POST", "/Connections", {
			OwnerId: ann.userId,
			ConnectToId: cat.userId,
			ConnectToType: "Network",
		});
		expect(network.status).toBe(400);
		expect(network.body.ResponseStatus.Errors[0].FieldName).toBe("ConnectToType");
		const impostor = await cat.http<ErrorBody>("POST", "/Connections", {
			OwnerId: ann.userId,
			ConnectToId: cat.userId,
		});
		expect(impostor.status).toBe(403);
		expect(await connectionsOwnedBy(plaza, cat.userId)).toBe(0);
	});

	test("deleting by anyone but the owner is refused and removes nothing; the owner removes both sides", async () => {
		const [mine] = (await ann.http<Records>("POST", "/Connections", { OwnerId: ann.userId, ConnectToId: cat.userId }))
			.body;
		const before = await connectionsOwnedBy(plaza, ann.userId, bob.userId, cat.userId);
		const asOwner = await cat.http<ErrorBody>("DELETE", `/Connections/${mine.Id}?OwnerId=${ann.userId}`);
		expect(asOwner.status).toBe(403);
		const asSelf = await cat.http<ErrorBody>("DELETE", `/Connections/${mine.Id}?OwnerId=${cat.userId}`);
		expect(asSelf.status).toBe(404);
		expect(await connectionsOwnedBy(plaza, ann.userId, bob.userId, cat.userId)).toBe(before);

		const deleted = await ann.http("DELETE", `/Connections/${mine.Id}?OwnerId=${ann.userId}`);
		expect(deleted.status).toBe(200);
		expect(deleted.body).toMatchObject({ Id: mine.Id, OwnerId: ann.userId, UserId: cat.userId, FirstName: "Cat" });
		expect(await connectionsOwnedBy(plaza, ann.userId, bob.userId, cat.userId)).toBe(before - 2);
		expect((await cat.http<Records>("GET", `/Users/${cat.userId}/Connections`)).body).toEqual([]);
		const generic = await ann.http<Records>("POST", "/json/reply/CreateConnection", {
			OwnerId: ann.userId,
			ConnectToId: cat.userId,
		});
		expect(generic.status).toBe(200);
		const genericDelete = await ann.http("POST", "/json/reply/DeleteConnection", {
			Id: generic.body[0].Id,
			OwnerId: ann.userId,
		});
		expect(genericDelete.status).toBe(200);
	});

	test("20 simultaneous identical CreateConnection calls make exactly one pair", async () => {
		const [dan, eve] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const replies = await Promise.all(
			Array.from({ length: 20 }, () =>
				dan.http("POST", "/Connections", { OwnerId: dan.userId, ConnectToId: eve.userId }),
			),
		);
		expect(replies.filter(r => r.status === 200)).toHaveLength(1);
		expect(replies.filter(r => r.status === 409)).toHaveLength(19);
		expect(await connectionsOwnedBy(plaza, dan.userId, eve.userId)).toBe(2);
	});

	test("A→B and B→A requested at once still make one pair", async () => {
		const [fay, gus] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		const replies = await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				i % 2
					? fay.http("POST", "/Connections", { OwnerId: fay.userId, ConnectToId: gus.userId })
					: gus.http("POST", "/Connections", { OwnerId: gus.userId, ConnectToId: fay.userId }),
			),
		);
		expect(replies.filter(r => r.status === 200)).toHaveLength(1);
		expect(await connectionsOwnedBy(plaza, fay.userId, gus.userId)).toBe(2);
	});
});

describe("networks and members", () => {
	const {
		plaza,
		users: [owner, joiner, stranger],
	} = plazaForSuite({
		services: ["users"],
		users: [{ FirstName: "Olga" }, { FirstName: "Jo" }, { FirstName: "Stan" }],
	});

	test("CreateNetwork makes its owner the first member", async () => {
		const reply = await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Chess Club" });
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({
			Id: expect.any(String),
			Name: "Chess Club",
			OwnerId: owner.userId,
			NumberOfMembers: 1,
			IsOpen: false,
		});
		const members = await owner.http<Records>("GET", `/Networks/${reply.body.Id}/Members`);
		expect(members.body).toEqual([
			{
				Id: expect.any(String),
				NetworkId: reply.body.Id,
				UserId: owner.userId,
				FirstName: "Olga",
				LastName: "Member",
				CreatedTime: expect.stringMatching(/^\/Date\(\d+\+0000\)\/$/),
			},
		]);
		const generic = await owner.http("POST", "/json/reply/FindNetwork", { Id: reply.body.Id });
		expect(generic.body).toEqual(reply.body);
		expect(
			(await stranger.http<ErrorBody>("POST", "/Networks", { OwnerId: owner.userId, Name: "Not mine" })).status,
		).toBe(403);
	});

	test("the owner adds anyone, a user adds themselves, a stranger adds nobody else; NumberOfMembers follows", async () => {
		const network = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Runners", IsOpen: true }))
			.body;
		const byOwner = await owner.http("POST", `/Networks/${network.Id}/Members`, { UserId: joiner.userId });
		expect(byOwner.status).toBe(200);
		expect(byOwner.body).toMatchObject({ NetworkId: network.Id, UserId: joiner.userId, FirstName: "Jo" });
		const refused = await stranger.http<ErrorBody>("POST", "/json/reply/CreateNetworkMember", {
			NetworkId: network.Id,
			UserId: owner.userId,
		});
		expect(refused.status).toBe(403);
		const himself = await stranger.http("POST", "/json/reply/CreateNetworkMember", {
			NetworkId: network.Id,
			UserId: stranger.userId,
		});
		expect(himself.status).toBe(200);
		const duplicate = await owner.http<ErrorBody>("POST", `/Networks/${network.Id}/Members`, { UserId: joiner.userId });
		expect(duplicate.status).toBe(409);
		expect((await owner.http("GET", `/Networks/${network.Id}`)).body.NumberOfMembers).toBe(3);
		expect(
			(await owner.http("POST", "/Networks/0f8fad5bd9cb469fa16570867728950e/Members", { UserId: joiner.userId }))
				.status,
		).toBe(404);

		const joined = await joiner.http<Records>("GET", `/Users/${joiner.userId}/Networks`);
		expect(joined.body.map(n => n.Id)).toEqual([network.Id]);
		const user = await stranger.http("GET", `/Users/${joiner.userId}`);
		expect(user.body.Networks).toEqual([{ ...network, NumberOfMembers: 3 }]);
	});

	test("20 simultaneous CreateNetworkMember calls: NumberOfMembers exactly right", async () => {
		const network = (await owner.http("POST", "/Networks", { OwnerId: owner.userId, Name: "Crowd", IsOpen: true }))
			.body;
		const users = await signUpAll(
			plaza,
			Array.from({ length: 20 }, () => ({})),
		);
		const replies = await Promise.all(
			users.map(u => u.http("POST", `/Networks/${network.Id}/Members`, { UserId: u.userId })),
		);
		expect(replies.every(r => r.status === 200)).toBe(true);
		const again = await Promise.all(
			users.slice(0, 5).map(u => u.http("POST", `/Networks/${network.Id}/Members`, { UserId: u.userId })),
		);
		expect(again.every(r => r.status === 409)).toBe(true);
		expect((await owner.http("GET", `/Networks/${network.Id}`)).body.NumberOfMembers).toBe(21);
		expect((await owner.http<Records>("GET", `/Networks/${network.Id}/Members?Limit=100`)).body).toHaveLength(21);
	});
});

describe("subscriptions", () => {
	const {
		users: [fan, star],
	} = plazaForSuite({ services: ["users"], users: [{}, {}] });

	test("subscribe to a user and to a network; duplicates 409; unknown 404; as someone else 403; unsubscribe", async () => {
		const network = (await star.http("POST", "/Networks", { OwnerId: star.userId, Name: "Fan Club" })).body;
		const toUser = await fan.http("POST", "/Subscriptions", {
			SubscriberId: fan.userId,
			SubscribedToId: star.userId,
			SubscribedToExternalName: "Star",
		});
		expect(toUser.status).toBe(200);
		expect(toUser.body).toEqual({
			SubscriberId: fan.userId,
			SubscribedToId: star.userId,
			SubscribedToExternalName: "Star",
		});
		expect(
			(
				await fan.http("POST", "/json/reply/CreateSubscription", {
					SubscriberId: fan.userId,
					SubscribedToId: network.Id,
				})
			).status,
		).toBe(200);
		expect(
			(await fan.http("POST", "/Subscriptions", { SubscriberId: fan.userId, SubscribedToId: star.userId })).status,
		).toBe(409);
		expect(
			(
				await fan.http("POST", "/Subscriptions", {
					SubscriberId: fan.userId,
					SubscribedToId: "0f8fad5bd9cb469fa16570867728950e",
				})
			).status,
		).toBe(404);
		expect(
			(await star.http("POST", "/Subscriptions", { SubscriberId: fan.userId, SubscribedToId: network.Id })).status,
		).toBe(403);

		const listed = await fan.http<Records>("GET", `/Users/${fan.userId}/Subscriptions`);
		expect(listed.body.map(s => s.SubscribedToId)).toEqual([star.userId, network.Id]);
		expect(
			((await star.http("GET", `/Users/${fan.userId}`)).body.Subscriptions as Records).map(s => s.SubscribedToId),
		).toEqual([star.userId, network.Id]);

		expect((await star.http("DELETE", `/Subscriptions/${star.userId}?SubscriberId=${fan.userId}`)).status).toBe(403);
		const removed = await fan.http("DELETE", `/Subscriptions/${star.userId}?SubscriberId=${fan.userId}`);
		expect(removed.status).toBe(200);
		expect(
			(await fan.http<Records>("GET", `/Users/${fan.userId}/Subscriptions`)).body.map(s => s.SubscribedToId),
		).toEqual([network.Id]);
	});
});

describe("embedding costs a constant number of calls", () => {
	test("AllUsers costs the same calls for a page of 5 users as for a page of 50, each with connections, networks and subscriptions", async () => {
		const counter = new CallCounter();
		const plaza = await startPlaza({ services: ["users"] }, [counter.middleware]);
		try {
			const users = await signUpAll(
				plaza,
				Array.from({ length: 50 }, () => ({})),
			);
			const hub = users[0];
			const network = (await hub.http("POST", "/Networks", { OwnerId: hub.userId, Name: "Everyone", IsOpen: true }))
				.body;
			for (const u of users.slice(1)) {
				await hub.http("POST", "/Connections", { OwnerId: hub.userId, ConnectToId: u.userId });
				await u.http("POST", `/Networks/${network.Id}/Members`, { UserId: u.userId });
				await u.http("POST", "/Subscriptions", { SubscriberId: u.userId, SubscribedToId: hub.userId });
			}
			const page = async (limit: number) => {
				counter.reset();
				clearHeldCaches(plaza.broker); // the cost of a cold page: nothing cached yet
				const reply = await hub.http<Records>("GET", `/Users?Limit=${limit}`);
				expect(reply.body).toHaveLength(limit);
				return counter.snapshot();
			};
			const small = await page(5);
			const large = await page(50);
			expect(large).toEqual(small);
			expect(Object.values(large).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
			const full = (await hub.http<Records>("GET", "/Users?Limit=50")).body.find(u => u.Id === users[1].userId)!;
			expect((full.Connections as Records).map(c => c.UserId)).toEqual([hub.userId]);
			expect((full.Networks as Records).map(n => n.Id)).toEqual([network.Id]);
			expect((full.Subscriptions as Records).map(s => s.SubscribedToId)).toEqual([hub.userId]);
		} finally {
			await plaza.stop();
		}
	});
});
