import { AddressInfo } from "node:net";
import { Server } from "node:http";
import { startPlaza, TestPlaza } from "./support/plaza";
import { startProbeServer } from "../shared/probes";
import { RawStream } from "./support/server-events";

interface MetricFamily {
	name: string;
	type: string;
	metrics: unknown[];
}
// The parser ships no types: it takes Prometheus text and throws on a line it cannot read.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parsePrometheus = require("parse-prometheus-text-format") as (text: string) => MetricFamily[];

/**
 * Issue 15: /metrics as a Prometheus scraper and a dashboard read it: valid text, Node.js's
 * standard process metrics under their usual names, and Plaza's operation histogram in `le` order.
 */
describe("/metrics for Prometheus", () => {
	let plaza: TestPlaza;
	let probes: Server;
	let texts: Array<{ where: string; text: string }>;
	beforeAll(async () => {
		plaza = await startPlaza({ services: ["users"] });
		probes = await startProbeServer(plaza.broker, 0);
		// Operations that end differently, so the histogram has several series with observations.
		await plaza.signUp();
		await plaza.http("GET", "/json/reply/NoSuchOperation");
		await plaza.http("POST", "/auth/credentials", { UserName: "nobody", Password: "wrong password" });
		const probePort = (probes.address() as AddressInfo).port;
		texts = [
			{ where: "probe port", text: await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text() },
			{ where: "gateway", text: (await plaza.admin("GET", "/metrics")).text },
		];
	});
	afterAll(async () => {
		probes.close();
		await plaza.stop();
	});

	/** The sample lines of a metric family, as their label text and value. */
	const samples = (text: string, name: string) =>
		text
			.split("\n")
			.map(line => new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line))
			.filter((match): match is RegExpExecArray => match !== null)
			.map(match => ({ labels: match[1] ?? "", value: Number(match[2]) }));

	test("parses as Prometheus text: every family typed once, none of Moleculer's summary lines mixed in", () => {
		for (const { where, text } of texts) {
			const families = parsePrometheus(text);
			const names = families.map(family => family.name);
			expect({
				where,
				untyped: families.filter(family => family.type === "UNTYPED").map(family => family.name),
			}).toEqual({ where, untyped: [] });
			expect({ where, repeated: names.filter((name, i) => names.indexOf(name) !== i) }).toEqual({
				where,
				repeated: [],
			});
			expect(text).not.toMatch(/^\S+_(min|mean|variance|stddev|max|rate)(\{|\s)/m);
			// The parser drops a line of another kind inside a histogram without a word: each line of one is a bucket, its
			// sum or its count.
			for (const { name } of families.filter(family => family.type === "HISTOGRAM")) {
				const own = text.split("\n").filter(line => line.startsWith(name) && /^[{ _]/.test(line.slice(name.length)));
				expect({
					where,
					name,
					strays: own.filter(line => !new RegExp(`^${name}_(bucket|sum|count)[{ ]`).test(line)),
				}).toEqual({ where, name, strays: [] });
			}
		}
	});

	test("has Node.js's default metrics under their conventional names, beside Moleculer's", () => {
		for (const { text } of texts) {
			const names = parsePrometheus(text).map(family => family.name);
			expect(names).toEqual(
				expect.arrayContaining([
					"process_cpu_seconds_total",
					"process_resident_memory_bytes",
					"process_start_time_seconds",
					"nodejs_eventloop_lag_seconds",
					"nodejs_heap_size_used_bytes",
					"nodejs_gc_duration_seconds",
					"process_memory_rss",
					"plaza_operation_requests_total",
				]),
			);
			const family = (name: string) => parsePrometheus(text).find(f => f.name === name);
			expect(family("process_cpu_seconds_total")?.type).toBe("COUNTER");
			expect(family("nodejs_eventloop_lag_seconds")?.type).toBe("GAUGE");
			const lag = samples(text, "nodejs_eventloop_lag_seconds")[0]?.value;
			expect(lag).toBeGreaterThanOrEqual(0);
			expect(samples(text, "process_cpu_seconds_total")[0]?.value).toBeGreaterThan(0);
		}
	});

	test("plaza_operation_duration_seconds is a histogram per operation, surface and status, buckets ascending to +Inf", () => {
		for (const { where, text } of texts) {
			const family = parsePrometheus(text).find(f => f.name === "plaza_operation_duration_seconds");
			expect({ where, type: family?.type }).toEqual({ where, type: "HISTOGRAM" });
			const buckets = samples(text, "plaza_operation_duration_seconds_bucket");
			// A series is its labels without `le`.
			const series = new Map<string, Array<{ le: string; value: number }>>();
			for (const bucket of buckets) {
				const le = /le="([^"]+)"/.exec(bucket.labels)?.[1] ?? "";
				const key = bucket.labels.replace(/,?le="[^"]+"/, "");
				series.set(key, [...(series.get(key) ?? []), { le, value: bucket.value }]);
			}
			expect(series.size).toBeGreaterThanOrEqual(2);
			expect(
				[...series.keys()].every(
					key => /operation="[^"]+"/.test(key) && /surface="[^"]+"/.test(key) && /status="\d+"/.test(key),
				),
			).toBe(true);
			for (const [key, lines] of series) {
				const bounds = lines.map(line => line.le);
				expect(bounds.at(-1)).toBe("+Inf");
				const finite = bounds.slice(0, -1).map(Number);
				expect({ key, finite }).toEqual({ key, finite: [...finite].sort((a, b) => a - b) });
				expect(finite.every(bound => Number.isFinite(bound))).toBe(true);
				const counts = lines.map(line => line.value);
				expect(counts.every((count, i) => i === 0 || count >= counts[i - 1])).toBe(true);
				// +Inf counts every observation, as _count does.
				const count = samples(text, "plaza_operation_duration_seconds_count").find(s => s.labels === key);
				expect(count?.value).toBe(counts.at(-1));
				expect(count?.value).toBeGreaterThan(0);
			}
		}
	});
	/** A sample's value, by metric name and the label text it contains (0 when there is none yet). */
	const valueOf = (text: string, name: string, ...labels: string[]) =>
		samples(text, name).find(sample => labels.every(label => sample.labels.includes(label)))?.value ?? 0;

	test("moleculer_request_* count each action call once, per action and caller: total, errors, time in ms, none left in flight", async () => {
		const reader = await plaza.signUp();
		const scrape = async () => (await plaza.admin("GET", "/metrics")).text;
		const find = ['action="users.find"', 'type="local"', 'caller="gateway"'];
		const before = await scrape();
		for (let i = 0; i < 3; i++) expect((await reader.http("GET", `/Users/${reader.userId}`)).status).toBe(200);
		const missing = await reader.http("GET", "/Users/0f8fad5bd9cb469fa16570867728950e");
		expect(missing.status).toBe(404);
		const after = await scrape();
		expect(
			valueOf(after, "moleculer_request_total", ...find) - valueOf(before, "moleculer_request_total", ...find),
		).toBe(4);
		expect(
			valueOf(after, "moleculer_request_time_count", ...find) -
				valueOf(before, "moleculer_request_time_count", ...find),
		).toBe(4);
		expect(valueOf(after, "moleculer_request_time_bucket", ...find, 'le="+Inf"')).toBe(
			valueOf(after, "moleculer_request_time_count", ...find),
		);
		expect(valueOf(after, "moleculer_request_time_sum", ...find)).toBeGreaterThan(0);
		expect(valueOf(after, "moleculer_request_active", ...find)).toBe(0);
		const notFound = [...find, 'errorCode="404"'];
		expect(
			valueOf(after, "moleculer_request_error_total", ...notFound) -
				valueOf(before, "moleculer_request_error_total", ...notFound),
		).toBe(1);
		expect(valueOf(after, "moleculer_request_levels", 'level="2"')).toBeGreaterThan(
			valueOf(before, "moleculer_request_levels", 'level="2"'),
		);
		expect(parsePrometheus(after).find(family => family.name === "moleculer_request_time")?.type).toBe("HISTOGRAM");
	});

	test("plaza_event_streams_open gauges the Server Events streams the gateway holds open", async () => {
		const scrape = async () => (await plaza.admin("GET", "/metrics")).text;
		const before = await scrape();
		expect(parsePrometheus(before).find(family => family.name === "plaza_event_streams_open")?.type).toBe("GAUGE");
		const streams = [await RawStream.open(plaza.url), await RawStream.open(plaza.url)];
		expect(valueOf(await scrape(), "plaza_event_streams_open") - valueOf(before, "plaza_event_streams_open")).toBe(2);
		await Promise.all(streams.map(stream => stream.close()));
		expect(valueOf(await scrape(), "plaza_event_streams_open")).toBe(valueOf(before, "plaza_event_streams_open"));
	});
});
