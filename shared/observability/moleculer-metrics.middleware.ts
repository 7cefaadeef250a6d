import { performance } from "node:perf_hooks";
import { ActionSchema, Context, Middleware, ServiceBroker } from "moleculer";
import { addFamilies, HistogramFamily, HistogramSeries, ValueFamily, ValueSeries } from "./metric-series";
import { Handler, wrappingMiddleware } from "../moleculer-internals";
type Failure = { name?: string; code?: number | string; type?: string } | undefined;

/** Moleculer's default buckets for its request and event times, in milliseconds. */
const millisecondBuckets = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** When `running` settles: `done` either way (time, in flight), then `failed` with the error, which goes on. */
function whenSettled(running: Promise<unknown>, done: () => void, failed: (err: Failure) => void): Promise<unknown> {
	return running.then(
		result => {
			done();
			return result;
		},
		(err: Failure) => {
			done();
			failed(err);
			throw err;
		},
	);
}

/** An error's labels as Moleculer's error counters have them, and their part of a series key. */
function errorLabels(err: Failure) {
	const labels = { errorName: err?.name ?? null, errorCode: err?.code ?? null, errorType: err?.type ?? null };
	return { labels, key: `${labels.errorName}|${String(labels.errorCode)}|${labels.errorType}` };
}

/**
 * Moleculer's metrics middleware (its internal "Metrics" is off in brokerOptions) with series bound once per action,
 * caller and event: the same names and labels (moleculer_request_total{service,action,type,caller}, _active,
 * _error_total, _time in ms, _levels; the event, transit and transporter counters) without per-call label hashing,
 * quantile windows and rate timers. Its `_rate` and quantile lines are left out, as /metrics never showed them.
 */
export function moleculerMetricsMiddleware(): Middleware {
	const family = {
		requests: new ValueFamily("moleculer.request.total", "counter", "Number of requests", "request"),
		active: new ValueFamily("moleculer.request.active", "gauge", "Number of active requests", "request"),
		errors: new ValueFamily("moleculer.request.error.total", "counter", "Number of request errors", "request"),
		time: new HistogramFamily(
			"moleculer.request.time",
			"Request times in milliseconds",
			"millisecond",
			millisecondBuckets,
		),
		levels: new ValueFamily("moleculer.request.levels", "counter", "Number of requests by context level", "request"),
		emitted: new ValueFamily("moleculer.event.emit.total", "counter", "Number of emitted events", "event"),
		broadcast: new ValueFamily("moleculer.event.broadcast.total", "counter", "Number of broadcast events", "event"),
		broadcastLocal: new ValueFamily(
			"moleculer.event.broadcast-local.total",
			"counter",
			"Number of local broadcast events",
			"event",
		),
		received: new ValueFamily("moleculer.event.received.total", "counter", "Number of received events", "event"),
		receivedActive: new ValueFamily(
			"moleculer.event.received.active",
			"gauge",
			"Number of active event executions",
			"request",
		),
		receivedErrors: new ValueFamily(
			"moleculer.event.received.error.total",
			"counter",
			"Number of event execution errors",
			"request",
		),
		receivedTime: new HistogramFamily(
			"moleculer.event.received.time",
			"Execution time of events in milliseconds",
			"millisecond",
			millisecondBuckets,
		),
		published: new ValueFamily("moleculer.transit.publish.total", "counter", "Number of published packets", "packet"),
		receivedPackets: new ValueFamily(
			"moleculer.transit.receive.total",
			"counter",
			"Number of received packets",
			"packet",
		),
		pendingRequests: new ValueFamily(
			"moleculer.transit.requests.active",
			"gauge",
			"Number of active requests",
			"request",
		),
		pendingStreams: new ValueFamily(
			"moleculer.transit.streams.send.active",
			"gauge",
			"Number of active sent streams",
			"stream",
		),
		sent: new ValueFamily("moleculer.transporter.packets.sent.total", "counter", "Number of sent packets", "packet"),
		sentBytes: new ValueFamily("moleculer.transporter.packets.sent.bytes", "counter", "Number of sent bytes", "byte"),
		receivedTotal: new ValueFamily(
			"moleculer.transporter.packets.received.total",
			"counter",
			"Number of received packets",
			"packet",
		),
		receivedBytes: new ValueFamily(
			"moleculer.transporter.packets.received.bytes",
			"counter",
			"Number of received bytes",
			"byte",
		),
	};
	/**
	 * Whether the broker behind a hook's `this` (the broker, its transit or its transporter) keeps metrics; hooks run
	 * before `created`.
	 */
	const enabledFor = (self: unknown) => {
		const broker = self instanceof ServiceBroker ? self : (self as { broker?: ServiceBroker }).broker;
		return !!broker?.isMetricsEnabled();
	};

	/** Counts `name`'s series of one label, for hooks that see only a name (events, packet types). */
	/**
	 * A transporter hook counting packets and their bytes (its second argument); the series made when it is wired, so a
	 * process with no transporter shows none (as Moleculer did).
	 */
	const countingPackets = (packets: ValueFamily, bytes: ValueFamily) =>
		function (this: unknown, next: Handler) {
			if (!enabledFor(this)) return next;
			const count = packets.series("", {});
			const size = bytes.series("", {});
			return function (this: unknown, ...args: unknown[]) {
				count.value++;
				size.value += (args[1] as { length?: number } | undefined)?.length ?? 0;
				return next.apply(this, args);
			};
		};
	const countBy = (values: ValueFamily, label: string) => (name: unknown) =>
		values.series(String(name), () => ({ [label]: name })).value++;
	// The levels a call can have are few: their series by level.
	const levels: ValueSeries[] = [];
	const levelSeries = (level: number) => (levels[level] ??= family.levels.series(String(level), { level }));

	function timedCall(type: "local" | "remote", next: Handler, action: ActionSchema): Handler {
		const service = (action.service as { fullName?: string } | undefined)?.fullName ?? null;
		const name = action.name ?? "";
		// The series of each caller of this action, bound at its first call.
		const byCaller = new Map<string | null, { requests: ValueSeries; active: ValueSeries; time: HistogramSeries }>();
		const seriesOf = (caller: string | null) => {
			let series = byCaller.get(caller);
			if (!series) {
				const labels = { service, action: name, type, caller };
				const key = `${name}|${type}|${caller ?? ""}`;
				series = {
					requests: family.requests.series(key, labels),
					active: family.active.series(key, labels),
					time: family.time.series(key, labels),
				};
				byCaller.set(caller, series);
			}
			return series;
		};
		return function measuredCall(this: unknown, ctx: unknown) {
			const { caller, level } = ctx as Context & { caller: string | null };
			const series = seriesOf(caller);
			series.requests.value++;
			series.active.value++;
			levelSeries(level).value++;
			const started = performance.now();
			const done = () => {
				series.time.observe(performance.now() - started);
				series.active.value--;
			};
			return whenSettled(next.call(this, ctx) as Promise<unknown>, done, err => {
				const failure = errorLabels(err);
				family.errors.series(`${name}|${type}|${caller ?? ""}|${failure.key}`, {
					service,
					action: name,
					type,
					caller,
					...failure.labels,
				}).value++;
			});
		};
	}

	function timedEvent(next: Handler, event: { group?: string; service?: { name?: string } }): Handler {
		const service = event.service?.name ?? null;
		const group = event.group ?? service;
		return function measuredEvent(this: unknown, ...args: unknown[]) {
			const { eventName, caller } = args[0] as { eventName: string; caller: string | null };
			const labels = { service, group, event: eventName, caller };
			const key = `${group}|${eventName}|${caller ?? ""}`;
			const active = family.receivedActive.series(key, labels);
			family.received.series(key, labels).value++;
			active.value++;
			const started = performance.now();
			const done = () => {
				family.receivedTime.series(key, labels).observe(performance.now() - started);
				active.value--;
			};
			return whenSettled(next.apply(this, args) as Promise<unknown>, done, err => {
				const failure = errorLabels(err);
				family.receivedErrors.series(`${key}|${failure.key}`, { ...labels, ...failure.labels }).value++;
			});
		};
	}

	/** A wrapper that counts its first argument, then calls on. */
	const counting = (count: (first: unknown) => void) =>
		function (this: unknown, next: Handler) {
			return enabledFor(this)
				? function counted(this: unknown, ...args: unknown[]) {
						count(args[0]);
						return next.apply(this, args);
					}
				: next;
		};

	return wrappingMiddleware({
		name: "PlazaMoleculerMetrics",
		created(broker: ServiceBroker) {
			if (broker.isMetricsEnabled()) addFamilies(broker, Object.values(family));
		},
		localAction(this: unknown, next: Handler, action: ActionSchema) {
			return enabledFor(this) ? timedCall("local", next, action) : next;
		},
		remoteAction(this: unknown, next: Handler, action: ActionSchema) {
			return enabledFor(this) ? timedCall("remote", next, action) : next;
		},
		localEvent(this: unknown, next: Handler, event: { group?: string; service?: { name?: string } }) {
			return enabledFor(this) ? timedEvent(next, event) : next;
		},
		emit: counting(countBy(family.emitted, "event")),
		broadcast: counting(countBy(family.broadcast, "event")),
		broadcastLocal: counting(countBy(family.broadcastLocal, "event")),
		transitPublish(
			this: {
				broker: ServiceBroker;
				pendingRequests: Map<unknown, unknown>;
				pendingReqStreams: Map<unknown, unknown>;
				pendingResStreams: Map<unknown, unknown>;
			},
			next: Handler,
		) {
			if (!enabledFor(this)) return next;
			const requests = family.pendingRequests.series("", {});
			const streams = family.pendingStreams.series("", {});
			const published = countBy(family.published, "type");
			// An arrow function: `this` stays the transit, which is what Moleculer binds a publish to.
			return (...args: unknown[]) => {
				published((args[0] as { type: string }).type);
				const sending = next.apply(this, args);
				// Moleculer added these sizes to its gauges on every packet; a gauge says how many are pending now.
				requests.value = this.pendingRequests.size;
				streams.value = this.pendingReqStreams.size + this.pendingResStreams.size;
				return sending;
			};
		},
		transitMessageHandler: counting(countBy(family.receivedPackets, "type")),
		transporterSend: countingPackets(family.sent, family.sentBytes),
		transporterReceive: countingPackets(family.receivedTotal, family.receivedBytes),
	});
}
