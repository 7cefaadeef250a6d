import { defaultConfig } from "../shared/config";
import { ErrorBody, Session, startPlaza, TestPlaza, WireRecord } from "./support/plaza";

type Records = WireRecord[];
interface Registration {
	UserId: string;
	SessionId: string;
	UserName: string;
}

describe("reservations: invitations that become accounts", () => {
	let plaza: TestPlaza;
	let host: Session;
	let stranger: Session;
	let venueId: string;
	let networkId: string;
	beforeAll(async () => {
		plaza = await startPlaza();
		[host, stranger] = await Promise.all([plaza.signUp(), plaza.signUp()]);
		venueId = (await host.http("POST", "/Venues", { OwnerId: host.userId, Name: "Clubhouse" })).body.Id;
		networkId = (await host.http("POST", "/Networks", { OwnerId: host.userId, Name: "Members" })).body.Id;
	});
	afterAll(() => plaza.stop());

	const invite = (fields: Record<string, unknown> = {}) =>
		host.http("POST", "/Reservations", {
			Email: `guest${Math.random()}@example.org`,
			FirstName: "Gue",
			LastName: "St",
			VenueId: venueId,
			NetworkId: networkId,
			...fields,
		});

	test("converted once: a signed-in account with the venue and network membership; a second conversion is 409", async () => {
		const reservation = await invite();
		expect(reservation.status).toBe(200);
		expect(reservation.body).toMatchObject({
			FirstName: "Gue",
			VenueId: venueId,
			NetworkId: networkId,
			ExpirationDate: expect.stringMatching(/^\/Date\(\d+\+0000\)\/$/),
		});

		const converted = await plaza.http<Registration>("POST", `/Reservations/${reservation.body.Id}/Convert`, {
			UserName: "guest.one",
			Password: "welcome aboard",
		});
		expect(converted.status).toBe(200);
		expect(converted.body).toEqual({
			UserId: expect.any(String),
			SessionId: expect.any(String),
			UserName: "guest.one",
		});
		expect(converted.headers.getSetCookie()[0]).toMatch(/^ss-id=/);
		const guest = (method: string, path: string) =>
			plaza.http<Records>(method, path, undefined, { "X-ss-id": converted.body.SessionId });

		const me = (
			await plaza.http("GET", `/Users/${converted.body.UserId}`, undefined, { "X-ss-id": converted.body.SessionId })
		).body;
		expect(me).toMatchObject({
			FirstName: "Gue",
			LastName: "St",
			Email: reservation.body.Email,
			DefaultVenueId: venueId,
		});
		expect((await guest("GET", `/Users/${converted.body.UserId}/Venues`)).body.map(v => v.Id)).toEqual([venueId]);
		expect((await guest("GET", `/Users/${converted.body.UserId}/Networks`)).body.map(n => n.Id)).toEqual([networkId]);
		expect((await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers).toBe(2);

		const again = await plaza.http<ErrorBody>("POST", "/json/reply/ConvertFromReservation", {
			ReservationId: reservation.body.Id,
			UserName: "guest.two",
			Password: "welcome aboard",
		});
		expect(again.status).toBe(409);
		expect(again.body.ResponseStatus.ErrorCode).toBe("AlreadyExists");
	});

	test("conversions at once: exactly one account", async () => {
		const reservation = (await invite()).body;
		const users = await plaza.count("users", "users");
		const replies = await Promise.all(
			Array.from({ length: 6 }, (_, i) =>
				plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, {
					UserName: `racer${i}`,
					Password: "welcome aboard",
				}),
			),
		);
		expect(replies.filter(r => r.status === 200)).toHaveLength(1);
		expect(replies.filter(r => r.status === 409)).toHaveLength(5);
		expect(await plaza.count("users", "users")).toBe(users + 1);
	});

	test("a failed conversion leaves nothing half-created and can be tried again", async () => {
		const reservation = (await invite()).body;
		const before = {
			users: await plaza.count("users", "users"),
			members: (await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers,
		};
		const taken = await plaza.http<ErrorBody>("POST", `/Reservations/${reservation.Id}/Convert`, {
			UserName: stranger.userName,
			Password: "welcome aboard",
		});
		expect(taken.status).toBe(409);
		expect(taken.body.ResponseStatus.Errors[0].FieldName).toBe("UserName");
		const weak = await plaza.http<ErrorBody>("POST", `/Reservations/${reservation.Id}/Convert`, {
			UserName: "fresh.name",
			Password: "short",
		});
		expect(weak.status).toBe(400);
		expect(await plaza.count("users", "users")).toBe(before.users);
		expect((await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers).toBe(before.members);
		expect(
			(
				await plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, {
					UserName: "fresh.name",
					Password: "welcome aboard",
				})
			).status,
		).toBe(200);
	});

	test("a conversion cut off half-way (its process killed) is repaired by a retry once its lease has run out", async () => {
		const reservation = (await invite()).body;
		const members = Number((await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers);
		// What a process killed between the writes leaves: the account (holding the e-mail address), a membership, a
		// pending claim.
		const orphan = await plaza.signUp({ UserName: "cut.off", Email: reservation.Email });
		// As the reservations service calls them (internal actions answer only the services they serve).
		await plaza.broker.call("graph.joinNetwork", { networkId, userId: orphan.userId }, { caller: "reservations" });
		await plaza.broker.call("venues.join", { venueId, userId: orphan.userId }, { caller: "reservations" });
		const cutOff = (claimedTime: number) =>
			plaza.stored("reservations").update(
				"user_reservations",
				{ id: reservation.Id },
				{
					conversion_state: "pending",
					conversion_id: "cut-off",
					conversion_user_id: orphan.userId,
					claimed_time: claimedTime,
				},
			);

		// Within the lease the attempt may still be alive: the invitee is told to wait.
		await cutOff(Date.now());
		const early = await plaza.http<ErrorBody>("POST", `/Reservations/${reservation.Id}/Convert`, {
			UserName: "retried",
			Password: "welcome aboard",
		});
		expect(early.status).toBe(409);
		expect(early.body.ResponseStatus.Errors[0].FieldName).toBe("ReservationId");

		await cutOff(Date.now() - 3600_000);
		const retried = await plaza.http<Registration>("POST", `/Reservations/${reservation.Id}/Convert`, {
			UserName: "retried",
			Password: "welcome aboard",
		});
		expect(retried.status).toBe(200);
		expect((await host.http("GET", `/Users/${orphan.userId}`)).status).toBe(404);
		expect((await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers).toBe(members + 1);
		const guest = { "X-ss-id": retried.body.SessionId };
		expect(
			(await plaza.http<Records>("GET", `/Users/${retried.body.UserId}/Venues`, undefined, guest)).body.map(v => v.Id),
		).toEqual([venueId]);
		expect(
			(
				await plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, {
					UserName: "retried.again",
					Password: "welcome aboard",
				})
			).status,
		).toBe(409);
	});

	test("a conversion cut off half-way and never retried is undone by the service's own sweep: no half account is left", async () => {
		const reservation = (await invite()).body;
		const members = Number((await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers);
		const orphan = await plaza.signUp({ UserName: "never.retried", Email: reservation.Email });
		await plaza.broker.call("graph.joinNetwork", { networkId, userId: orphan.userId }, { caller: "reservations" });
		await plaza.stored("reservations").update(
			"user_reservations",
			{ id: reservation.Id },
			{
				conversion_state: "pending",
				conversion_id: "cut-off",
				conversion_user_id: orphan.userId,
				claimed_time: Date.now() - 3600_000,
			},
		);
		expect((await orphan.http("GET", "/auth")).status).toBe(200);

		const sweep = () =>
			(plaza.broker.getLocalService("reservations") as unknown as { reopenCutOff(): Promise<number> }).reopenCutOff();
		expect(await sweep()).toBe(1);
		expect(await sweep()).toBe(0);
		expect((await orphan.http("GET", "/auth")).status).toBe(401);
		expect((await host.http("GET", `/Users/${orphan.userId}`)).status).toBe(404);
		expect((await host.http("GET", `/Networks/${networkId}`)).body.NumberOfMembers).toBe(members);
		// Open again: the invitee converts it as if nothing had happened.
		expect(
			(
				await plaza.http("POST", `/Reservations/${reservation.Id}/Convert`, {
					UserName: "swept.then.joined",
					Password: "welcome aboard",
				})
			).status,
		).toBe(200);
	});

	test("only the owner of a venue or network invites into it; unknown ones are 404", async () => {
		expect((await stranger.http("POST", "/Reservations", { Email: "x@example.org", VenueId: venueId })).status).toBe(
			403,
		);
		expect(
			(await stranger.http("POST", "/Reservations", { Email: "x@example.org", NetworkId: networkId })).status,
		).toBe(403);
		expect(
			(
				await host.http("POST", "/Reservations", {
					Email: "x@example.org",
					VenueId: "0f8fad5bd9cb469fa16570867728950e",
				})
			).status,
		).toBe(404);
		const plain = await stranger.http("POST", "/json/reply/CreateUserReservation", { Email: "friend@example.org" });
		expect(plain.status).toBe(200);
		const { Email: _invitees, ...shown } = plain.body;
		expect((await stranger.http("GET", `/Reservations/${plain.body.Id}`)).body).toEqual(shown);
		expect((await host.http("GET", `/Reservations/${plain.body.Id}`)).status).toBe(404);
	});

	test("FindUserReservation shows the invitee's e-mail to admins only, not to the inviter (PRODUCT.md §3)", async () => {
		const Email = `invitee${Date.now()}@example.org`;
		const reservation = (await host.http("POST", "/Reservations", { Email, FirstName: "In", LastName: "Vitee" })).body;
		for (const path of [`/Reservations/${reservation.Id}`, `/json/reply/FindUserReservation?Id=${reservation.Id}`]) {
			const toInviter = await host.http("GET", path);
			expect(toInviter.status).toBe(200);
			expect(toInviter.body).toMatchObject({ Id: reservation.Id, FirstName: "In", LastName: "Vitee" });
			expect(toInviter.body).not.toHaveProperty("Email");
			expect(toInviter.text).not.toContain(Email);
		}
		expect((await plaza.admin("GET", `/Reservations/${reservation.Id}`)).body).toMatchObject({
			Id: reservation.Id,
			Email,
		});
	});

	test("an expired reservation is refused and converts nothing", async () => {
		const expiring = await startPlaza({ reservationTtlSeconds: 1 });
		try {
			const inviter = await expiring.signUp();
			const reservation = (await inviter.http("POST", "/Reservations", { Email: "late@example.org" })).body;
			await new Promise(resolve => setTimeout(resolve, 1100));
			const users = await expiring.count("users", "users");
			const reply = await expiring.http<ErrorBody>("POST", `/Reservations/${reservation.Id}/Convert`, {
				UserName: "too.late",
				Password: "welcome aboard",
			});
			expect(reply.status).toBe(400);
			expect(reply.body.ResponseStatus.Errors[0]).toMatchObject({
				FieldName: "ReservationId",
				Message: "The reservation has expired",
			});
			expect(await expiring.count("users", "users")).toBe(users);
		} finally {
			await expiring.stop();
		}
	});

	test("the default lifetime of a reservation is 14 days", () => {
		expect(defaultConfig().reservationTtlSeconds).toBe(14 * 24 * 3600);
	});
});
