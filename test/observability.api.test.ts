import os from "node:os";
import { AddressInfo } from "node:net";
import { Server } from "node:http";
import { Middleware, ServiceBroker } from "moleculer";
import { startPlaza, TestPlaza } from "./support/plaza";
import { startProbeServer } from "../shared/probes";
import { defaultConfig } from "../shared/config";

/**
 * Issue 13: what a process tells its scrapers and tracers. /metrics names no host detail (host
 * name, user, addresses, MACs, command line); traces never carry a request's params, so no
 * password reaches them.
 */
describe("/metrics shows no host details", () => {
	let plaza: TestPlaza;
	let probes: Server;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"] });
		probes = await startProbeServer(plaza.broker, 0);
	});
	afterAll(async () => {
		probes.close();
		await plaza.stop();
	});

	/** Every label value of a Prometheus text. */
	const labelValues = (text: string) => [...text.matchAll(/="((?:[^"\\]|\\.)*)"/g)].map(m => m[1]);
	const metricNames = (text: string) => [
		...new Set(
			text
				.split("\n")
				.filter(l => l && !l.startsWith("#"))
				.map(l => l.split(/[{ ]/)[0]),
		),
	];

	test("neither on the probe port nor through the gateway: no host name, user name, MAC address or process argument", async () => {
		const probePort = (probes.address() as AddressInfo).port;
		await plaza.signUp();
		const texts = [
			await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text(),
			(await plaza.admin("GET", "/metrics")).text,
		];
		const user = os.userInfo();
		// The command line's words long enough not to be any number or label (Jest's own "-w 1" is).
		const hostDetails = [os.hostname(), user.username, user.homedir, ...process.argv.filter(arg => arg.length > 3)];
		for (const text of texts) {
			// The process's own measures are still there.
			expect(metricNames(text)).toEqual(expect.arrayContaining(["process_memory_rss", "os_memory_free"]));
			expect(
				metricNames(text).filter(name => /^(os_hostname|os_user_|os_network_|process_arguments)/.test(name)),
			).toEqual([]);
			// Moleculer's default node ID (host name, pid) would be a label of every metric.
			const values = labelValues(text);
			expect(values.filter(value => hostDetails.includes(value) || value.startsWith(`${os.hostname()}-`))).toEqual([]);
			expect(text).not.toMatch(/\b[0-9a-f]{2}(:[0-9a-f]{2}){5}\b/i);
		}
	});
});

describe("tracing (TRACING=true)", () => {
	let plaza: TestPlaza;
	const spans: Array<{ name: string; tags: unknown }> = [];
	/** An exporter beside the configured Console one, catching every finished span. */
	const capture: Middleware = {
		started(broker: ServiceBroker) {
			const tracer = broker.tracer as unknown as { exporter: unknown[] };
			tracer.exporter.push({
				spanStarted() {},
				spanFinished: (span: { name: string; tags: unknown }) => spans.push({ name: span.name, tags: span.tags }),
				stop: async () => {},
			});
		},
	} as Middleware;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"], cluster: { ...defaultConfig().cluster, tracing: true } }, [
			capture,
		]);
	});
	afterAll(() => plaza.stop());

	test("a sign-in's spans carry neither its Password nor the session it opens", async () => {
		const member = await plaza.signUp({ Password: "tracing must not see this" });
		spans.length = 0;
		const signIn = await plaza.http<{ SessionId: string }>("POST", "/auth/credentials", {
			UserName: member.userName,
			Password: member.password,
		});
		expect(signIn.status).toBe(200);
		// Spans finish after the answer is sent: wait for the sign-in's, however slow the machine.
		for (let waited = 0; waited < 5_000 && !spans.some(s => s.name.includes("sessions.authenticate")); waited += 20)
			await new Promise(resolve => setTimeout(resolve, 20));
		expect(spans.map(s => s.name)).toEqual(expect.arrayContaining([expect.stringContaining("sessions.authenticate")]));
		const exported = JSON.stringify(spans);
		expect(exported).not.toContain(member.password);
		expect(exported).not.toContain(signIn.body.SessionId);
		expect(exported).not.toContain(member.token);
	});
});

/**
 * Issue 15: W3C trace context. A caller's `traceparent` names the trace its request belongs to: the
 * trace id is the request's id on every log line, across services, and comes back in the answer's
 * `traceparent` beside Plaza's own span id (across processes and to a collector: tracing.test.ts).
 */
describe("trace context (traceparent)", () => {
	let plaza: TestPlaza;
	const logged: Array<Record<string, unknown>> = [];
	beforeAll(async () => {
		// LOG_FORMAT=json: every line is one JSON object (Moleculer's console logger writes with console.log, .warn and
		// .error).
		const keep = (...args: unknown[]) => {
			for (const arg of args) {
				try {
					const line = JSON.parse(String(arg)) as unknown;
					if (line && typeof line === "object") logged.push(line as Record<string, unknown>);
				} catch {
					// not a JSON line
				}
			}
		};
		for (const method of ["log", "warn", "error"] as const) jest.spyOn(console, method).mockImplementation(keep);
		plaza = await startPlaza({ services: ["users"], logLevel: "info", logFormat: "json" });
	});
	afterAll(async () => {
		// The gateway sends its request counts to the limits store 250 ms after a request; after stop it would log the
		// failure past the file's end.
		await new Promise(resolve => setTimeout(resolve, 400));
		await plaza.stop();
	});

	const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
	const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;

	test("the trace id is the request's id on the gateway's line and a service's call line, and comes back with Plaza's span id", async () => {
		const reply = await plaza.http(
			"POST",
			"/auth/credentials",
			{ UserName: "nobody", Password: "not a member's" },
			{ traceparent },
		);
		expect(reply.status).toBe(401);
		const answered = reply.headers.get("traceparent") ?? "";
		expect(answered).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
		expect(answered.split("-")[2]).not.toBe("00f067aa0ba902b7");
		expect(reply.headers.get("x-request-id")).toBe(traceId);
		const lines = logged.filter(line => line.requestID === traceId);
		expect(lines.map(line => line.event)).toEqual(expect.arrayContaining(["call"]));
		expect(lines.some(line => line.event === "request" || line.event === "request-failed")).toBe(true);
		expect(lines.filter(line => line.event === "call").map(line => line.action)).toEqual(
			expect.arrayContaining([expect.stringMatching(/^sessions\./)]),
		);
	});

	test("the trace id wins over an X-Request-ID (proxies add one to every request), which still names a request sent without a trace", async () => {
		const traced = await plaza.http("GET", "/operations", undefined, {
			traceparent,
			"X-Request-ID": "caller-chosen-1",
		});
		expect(traced.headers.get("x-request-id")).toBe(traceId);
		expect(traced.headers.get("traceparent")).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
		const untraced = await plaza.http("GET", "/operations", undefined, { "X-Request-ID": "caller-chosen-1" });
		expect(untraced.headers.get("x-request-id")).toBe("caller-chosen-1");
		expect(untraced.headers.get("traceparent")).toBeNull();
	});

	test.each([
		["an unknown version", `01-${traceId}-00f067aa0ba902b7-01`],
		["upper-case hex", `00-${traceId.toUpperCase()}-00f067aa0ba902b7-01`],
		["an all-zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
		["a short span id", `00-${traceId}-00f067aa0ba9-01`],
		["something else", "not a trace"],
	])("a traceparent with %s is ignored", async (_what, header) => {
		const reply = await plaza.http("GET", "/operations", undefined, { traceparent: header });
		expect(reply.status).toBe(200);
		expect(reply.headers.get("traceparent")).toBeNull();
		expect(reply.headers.get("x-request-id")).not.toBe(traceId);
	});
});
