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
		plaza = await startPlaza();
		probes = await startProbeServer(plaza.broker, 0);
	});
	afterAll(async () => {
		probes.close();
		await plaza.stop();
	});

	/** Every label value of a Prometheus text. */
	const labelValues = (text: string) => [...text.matchAll(/="((?:[^"\\]|\\.)*)"/g)].map(m => m[1]);
	const metricNames = (text: string) => [...new Set(text.split("\n").filter(l => l && !l.startsWith("#")).map(l => l.split(/[{ ]/)[0]))];

	test("neither on the probe port nor through the gateway: no host name, user name, MAC address or process argument", async () => {
		const probePort = (probes.address() as AddressInfo).port;
		await plaza.signUp();
		const texts = [await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text(), (await plaza.admin("GET", "/metrics")).text];
		const user = os.userInfo();
		// The command line's words long enough not to be any number or label (Jest's own "-w 1" is).
		const hostDetails = [os.hostname(), user.username, user.homedir, ...process.argv.filter(arg => arg.length > 3)];
		for (const text of texts) {
			// The process's own measures are still there.
			expect(metricNames(text)).toEqual(expect.arrayContaining(["process_memory_rss", "os_memory_free"]));
			expect(metricNames(text).filter(name => /^(os_hostname|os_user_|os_network_|process_arguments)/.test(name))).toEqual([]);
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
			tracer.exporter.push({ spanStarted() {}, spanFinished: (span: { name: string; tags: unknown }) => spans.push({ name: span.name, tags: span.tags }), stop: async () => {} });
		},
	} as Middleware;
	beforeAll(async () => {
		plaza = await startPlaza({ cluster: { ...defaultConfig().cluster, tracing: true } }, [capture]);
	});
	afterAll(() => plaza.stop());

	test("a sign-in's spans carry neither its Password nor the session it opens", async () => {
		const member = await plaza.signUp({ Password: "tracing must not see this" });
		spans.length = 0;
		const signIn = await plaza.http<{ SessionId: string }>("POST", "/auth/credentials", { UserName: member.userName, Password: member.password });
		expect(signIn.status).toBe(200);
		await new Promise(resolve => setTimeout(resolve, 100));
		expect(spans.map(s => s.name)).toEqual(expect.arrayContaining([expect.stringContaining("sessions.authenticate")]));
		const exported = JSON.stringify(spans);
		expect(exported).not.toContain(member.password);
		expect(exported).not.toContain(signIn.body.SessionId);
		expect(exported).not.toContain(member.token);
	});
});
