import http, { Server } from "node:http";
import { AddressInfo } from "node:net";
import { describeCluster, GatewayClient, sleep, TestCluster } from "./support/cluster";
import { startPlaza, TestPlaza } from "./support/plaza";
import { defaultConfig, loadConfig } from "../shared/config";

/** A span as a Zipkin v2 collector receives it. */
interface ZipkinSpan {
	traceId: string;
	id: string;
	parentId?: string | null;
	name: string;
	localEndpoint?: { serviceName?: string | null };
	tags?: Record<string, string>;
}

/**
 * A stand-in for an operator's collector (an OpenTelemetry collector's zipkin receiver): keeps what is posted to
 * /api/v2/spans.
 */
async function fakeZipkin(): Promise<{ server: Server; url: string; spans: ZipkinSpan[]; bodies: string[] }> {
	const spans: ZipkinSpan[] = [];
	const bodies: string[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			if (req.method === "POST" && req.url === "/api/v2/spans") {
				const body = Buffer.concat(chunks).toString();
				bodies.push(body);
				spans.push(...(JSON.parse(body) as ZipkinSpan[]));
			}
			res.statusCode = 202;
			res.end();
		});
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/spans`, spans, bodies };
}

/** A users node and a gateway-1, each with its settings, once the gateway reaches the users node (a sign-in is 401, not 503). */
async function usersAndGateway(
	cluster: TestCluster,
	users: Record<string, string>,
	gatewaySettings: Record<string, string>,
): Promise<GatewayClient> {
	const [, gateway] = await Promise.all([
		cluster.startNode("users-1", "users", users),
		cluster.startGateway("gateway-1", gatewaySettings),
	]);
	const signIn = () => gateway.call("POST", "/auth/credentials", { UserName: "nobody", Password: "x" });
	for (let tries = 0; (await signIn()).status === 503 && tries < 100; tries++) await sleep(200);
	return gateway;
}

/**
 * Issue 15: a trace an operator's system can follow across Plaza's processes. A caller's W3C
 * `traceparent` names the trace: its id is the request id on the log lines of the gateway and of
 * the service it calls (each its own process, over NATS), and the spans both send to the
 * collector (TRACING_EXPORTER=zipkin) carry it, children of the caller's span, without the
 * request's password or the session it opens.
 */
describeCluster("a trace across processes (traceparent, Zipkin export)", () => {
	let cluster: TestCluster;
	let gateway: GatewayClient;
	let zipkin: Awaited<ReturnType<typeof fakeZipkin>>;
	beforeAll(async () => {
		zipkin = await fakeZipkin();
		cluster = await TestCluster.start();
		const tracing = { TRACING_EXPORTER: "zipkin", TRACING_ENDPOINT: zipkin.url };
		gateway = await usersAndGateway(cluster, tracing, tracing);
	}, 60_000);
	afterAll(async () => {
		await cluster?.stop();
		zipkin?.server.close();
	}, 60_000);

	const traceId = "0af7651916cd43dd8448eb211c80319c";
	const callerSpan = "b7ad6b7169203331";

	test("the trace id is on both processes' log lines and spans; no password or session id is exported", async () => {
		const userName = `tracer${Date.now()}`;
		const password = "the password no trace may hold";
		expect(
			(
				await gateway.call("POST", "/register", {
					UserName: userName,
					Password: password,
					FirstName: "Trace",
					LastName: "Able",
				})
			).status,
		).toBe(200);
		const signIn = await gateway.call(
			"POST",
			"/auth/credentials",
			{ UserName: userName, Password: password },
			{ traceparent: `00-${traceId}-${callerSpan}-01` },
		);
		expect(signIn.status).toBe(200);
		const sessionId = String(signIn.body.SessionId);
		expect(signIn.headers.get("x-request-id")).toBe(traceId);
		const answered = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(signIn.headers.get("traceparent") ?? "");
		expect(answered?.[1]).toBe(traceId);
		const gatewaySpan = answered?.[2];

		// Log lines: the gateway's request line (written once the answer is sent) and the users node's call lines.
		for (
			let waited = 0;
			waited < 2_000 &&
			!cluster.logLines("gateway-1").some(line => line.requestID === traceId && line.event === "request");
			waited += 50
		)
			await sleep(50);
		expect(
			cluster.logLines("gateway-1").find(line => line.requestID === traceId && line.event === "request"),
		).toMatchObject({ path: "/auth/credentials", status: 200 });
		expect(
			cluster
				.logLines("users-1")
				.filter(line => line.requestID === traceId && line.event === "call")
				.map(line => line.action),
		).toEqual(expect.arrayContaining(["sessions.authenticate", "users.verifyCredentials"]));

		// Spans: each process posts its own every 5 s.
		const ofTrace = () => zipkin.spans.filter(span => span.traceId === traceId);
		for (
			let waited = 0;
			waited < 12_000 &&
			!["HTTP POST", "users.verifyCredentials"].every(name => ofTrace().some(span => span.name.includes(name)));
			waited += 200
		)
			await sleep(200);
		const spans = ofTrace();
		const http = spans.find(span => span.name === "HTTP POST");
		expect(http).toMatchObject({ id: gatewaySpan, parentId: callerSpan, localEndpoint: { serviceName: "gateway" } });
		expect(http?.tags).toMatchObject({
			"http.path": "/auth/credentials",
			"http.status_code": "200",
			operation: "Auth",
		});
		const authenticate = spans.find(span => span.name.includes("sessions.authenticate"));
		expect(authenticate).toMatchObject({ parentId: gatewaySpan, localEndpoint: { serviceName: "sessions" } });
		expect(spans.find(span => span.name.includes("users.verifyCredentials"))).toMatchObject({
			parentId: authenticate?.id,
		});
		const exported = zipkin.bodies.join("\n");
		expect(exported).not.toContain(password);
		expect(exported).not.toContain(sessionId);
	}, 30_000);
});

/**
 * Issue 35: the short log format too names the trace on the service node's lines. In one process the
 * gateway's request line says it all; a node of several writes its own line per call it serves.
 */
describeCluster("a trace on a service node's short log lines", () => {
	let cluster: TestCluster;
	let gateway: GatewayClient;
	beforeAll(async () => {
		cluster = await TestCluster.start();
		gateway = await usersAndGateway(cluster, { LOG_FORMAT: "short" }, {});
	}, 60_000);
	afterAll(() => cluster?.stop(), 60_000);

	test("each call the node serves is an info line carrying the request's trace id", async () => {
		const traceId = "1af7651916cd43dd8448eb211c80319d";
		const reply = await gateway.call(
			"POST",
			"/auth/credentials",
			{ UserName: "nobody", Password: "wrong" },
			{ traceparent: `00-${traceId}-b7ad6b7169203331-01` },
		);
		expect(reply.status).toBe(401);
		const lines = () =>
			cluster
				.node("users-1")
				.process.output()
				.split("\n")
				.filter(line => line.includes(`requestID=${traceId}`));
		for (let waited = 0; waited < 2_000 && lines().length === 0; waited += 50) await sleep(50);
		expect(lines()).toEqual(expect.arrayContaining([expect.stringMatching(/INFO .*sessions\.authenticate/)]));
	}, 30_000);
});

/** The same in one process (no NATS or PostgreSQL needed): what reaches the collector, and when. */
describe("Zipkin export in one process", () => {
	let plaza: TestPlaza;
	let zipkin: Awaited<ReturnType<typeof fakeZipkin>>;
	const password = "one process, no trace of it";
	let sessionId = "";
	let answered = "";
	beforeAll(async () => {
		zipkin = await fakeZipkin();
		plaza = await startPlaza({
			cluster: { ...defaultConfig().cluster, traceExport: { kind: "zipkin", endpoint: zipkin.url } },
		});
		const member = await plaza.signUp({ Password: password });
		const signIn = await plaza.http<{ SessionId: string }>(
			"POST",
			"/auth/credentials",
			{ UserName: member.userName, Password: password },
			{ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
		);
		sessionId = signIn.body.SessionId;
		answered = signIn.headers.get("traceparent") ?? "";
		await plaza.http("GET", "/operations", undefined, { "X-Request-ID": "caller-chosen-2" });
		await plaza.http("GET", "/operations", undefined, {
			traceparent: "00-5bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		});
		// Stopping sends what the 5 s timer has not yet sent.
		await plaza.stop();
	});
	afterAll(() => zipkin?.server.close());

	test("a stopping node sends its spans: the caller's trace, its span the parent of the gateway's, the gateway's the parent of the action's", () => {
		const spans = zipkin.spans.filter(span => span.traceId === "4bf92f3577b34da6a3ce929d0e0e4736");
		const http = spans.find(span => span.name === "HTTP POST");
		expect(http).toMatchObject({ parentId: "00f067aa0ba902b7", id: answered.split("-")[2] });
		expect(spans.find(span => span.name.includes("sessions.authenticate"))?.parentId).toBe(http?.id);
		expect(zipkin.bodies.join("\n")).not.toContain(password);
		expect(zipkin.bodies.join("\n")).not.toContain(sessionId);
	});

	test("every trace id is one a collector takes (32 hex digits), a caller's X-Request-ID included; a trace the caller did not sample is not sent", () => {
		expect(zipkin.spans.length).toBeGreaterThan(3);
		expect(
			zipkin.spans.filter(span => !/^[0-9a-f]{32}$/.test(span.traceId) || !/^[0-9a-f]{16}$/.test(span.id)),
		).toEqual([]);
		// Of the two /operations requests, the X-Request-ID one only.
		expect(zipkin.spans.filter(span => span.tags?.["http.path"] === "/operations")).toHaveLength(1);
		expect(zipkin.spans.filter(span => span.traceId === "5bf92f3577b34da6a3ce929d0e0e4736")).toEqual([]);
	});
});

describe("TRACING_EXPORTER", () => {
	test("is off unless set; zipkin takes the collector's URL from TRACING_ENDPOINT, and is refused without one", () => {
		expect(loadConfig({}).cluster.traceExport).toBeUndefined();
		expect(
			loadConfig({ TRACING_EXPORTER: "zipkin", TRACING_ENDPOINT: "http://otel-collector:9411/api/v2/spans" }).cluster
				.traceExport,
		).toEqual({ kind: "zipkin", endpoint: "http://otel-collector:9411/api/v2/spans" });
		expect(() => loadConfig({ TRACING_EXPORTER: "zipkin" })).toThrow(/TRACING_ENDPOINT/);
		expect(() => loadConfig({ TRACING_EXPORTER: "jaeger", TRACING_ENDPOINT: "http://x:1" })).toThrow(
			/TRACING_EXPORTER/,
		);
	});
});
