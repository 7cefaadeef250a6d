import { Db } from "mongodb";
import { adminHeaders, describeCluster, GatewayClient, TestCluster } from "./support/cluster";
import { mongoTestUri, openTestMongo } from "./support/mongo";

/**
 * Without a MongoDB server (MONGO_URI) this is skipped, as the cluster suites are without PostgreSQL and nats-server.
 */
const describeOnMongo = mongoTestUri ? describeCluster : describe.skip;

/**
 * Teams deploy domains independently: here the users domain runs on MongoDB while the other nodes
 * keep PostgreSQL, over NATS, through the built entry point. What a client sees is the same, and
 * the records are documents in MongoDB.
 */
describeOnMongo("the users domain on MongoDB, the other domains on PostgreSQL, over NATS", () => {
	let cluster: TestCluster;
	let gateway: GatewayClient;
	let database: ReturnType<typeof openTestMongo>;
	let mongo: Db;

	beforeAll(async () => {
		database = openTestMongo();
		mongo = database.db;
		cluster = await TestCluster.start();
		await Promise.all([
			cluster.startNode("users-1", "users", { MONGO_URI: database.uri, DATABASE_URL: "" }),
			cluster.startNode("graph-1", "graph"),
			cluster.startNode("posts-1", "posts"),
			cluster.startNode("others-1", "venues,systems"),
			cluster.startGateway("gateway-1").then(started => (gateway = started)),
		]);
		await gateway.waitForCluster();
	}, 120_000);

	afterAll(async () => {
		await cluster?.stop();
		await database?.close();
	});

	test("a registration is a document in MongoDB; sign-in, profile, listing and sign-out work as on PostgreSQL", async () => {
		const name = `Mongo${Date.now()}`;
		const registered = await gateway.call("POST", "/register", {
			UserName: name,
			Password: "documents all the way",
			FirstName: "Ada",
			LastName: "Mongo",
			Email: `${name}@Example.org`,
			AutoLogin: true,
		});
		expect(registered.status).toBe(200);
		const userId = String(registered.body.UserId);
		expect(await mongo.collection("users").findOne({ user_name_key: name.toLowerCase() })).toMatchObject({
			first_name: "Ada",
			email_key: `${name.toLowerCase()}@example.org`,
		});

		const again = await gateway.call("POST", "/register", {
			UserName: name.toUpperCase(),
			Password: "documents all the way",
			FirstName: "Eve",
		});
		expect(again.status).toBe(409);

		const signedIn = await gateway.call("POST", "/auth/credentials", {
			UserName: `${name}@example.org`,
			Password: "documents all the way",
		});
		expect(signedIn.status).toBe(200);
		const token = String(signedIn.body.SessionId);
		expect(await mongo.collection("sessions").countDocuments({ user_id: userId })).toBe(2);

		const updated = await gateway.call(
			"PUT",
			`/Users/${userId}`,
			{ Id: userId, FirstName: "Ada", LastName: "Lovelace", JobTitle: "Engineer" },
			{ "X-ss-id": token },
		);
		expect(updated.status).toBe(200);
		expect(updated.body).toMatchObject({ Id: userId, FirstName: "Ada", LastName: "Lovelace", JobTitle: "Engineer" });
		expect(await mongo.collection("users").findOne({ user_name_key: name.toLowerCase() })).toMatchObject({
			last_name: "Lovelace",
			job_title: "Engineer",
		});

		const listed = await gateway.call("GET", "/Users?Limit=100", undefined, adminHeaders);
		expect(listed.status).toBe(200);
		expect(listed.body.find(user => user.Id === userId)).toMatchObject({ FirstName: "Ada", JobTitle: "Engineer" });

		expect((await gateway.call("POST", "/auth/logout", {}, { "X-ss-id": token })).status).toBe(200);
		expect((await gateway.call("GET", `/Users/${userId}`, undefined, { "X-ss-id": token })).status).toBe(401);
		expect(await mongo.collection("sessions").countDocuments({ user_id: userId })).toBe(1);
	});
});
