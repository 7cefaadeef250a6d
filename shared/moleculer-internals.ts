import { BrokerOptions, MetricReporters, Middleware, ServiceBroker } from "moleculer";

/**
 * What Plaza uses of Moleculer that its typings leave out or type wrongly, in one place. The rest
 * (the transit's pendingRequests and tx, registry.nodes.disconnected, the metrics registry's store
 * and reporters) Moleculer 0.15 types, and is used as typed.
 */

/** A call Moleculer wraps: an action, an event handler, an emit, a packet's publish or handling. */
export type Handler = (this: unknown, ...args: unknown[]) => unknown;

/** What Moleculer passes a transporter's send: the packet travels beside its serialized bytes. */
export interface SendMeta {
	packet?: { type?: string; target?: string | null };
}

export type TransporterSend = (topic: string, data: Buffer, meta: SendMeta) => Promise<void>;
export type TransporterReceive = (cmd: string, data: Buffer, socket?: unknown) => unknown;

/**
 * A hook that gets the method Moleculer would call (`next`, and what it is about) and gives back the one to call
 * instead.
 */
type Wrapping<F> = (this: never, next: F, ...about: never[]) => F;

/** The hooks of a middleware that wrap a method, as Moleculer calls them. */
interface WrappingHooks {
	localAction?: Wrapping<Handler>;
	remoteAction?: Wrapping<Handler>;
	localEvent?: Wrapping<Handler>;
	emit?: Wrapping<Handler>;
	broadcast?: Wrapping<Handler>;
	broadcastLocal?: Wrapping<Handler>;
	transitPublish?: Wrapping<Handler>;
	transitMessageHandler?: Wrapping<Handler>;
	transporterSend?: Wrapping<TransporterSend> | Wrapping<Handler>;
	transporterReceive?: Wrapping<TransporterReceive> | Wrapping<Handler>;
}

/** A middleware whose wrapping hooks are typed as what they are. */
export type WrappingMiddleware = Omit<Middleware, keyof WrappingHooks> & WrappingHooks;

export function wrappingMiddleware(middleware: WrappingMiddleware): Middleware {
	// Cast: Moleculer's typings give a wrapping hook the wrapped method's result (transporterSend a Promise), not the
	// wrapper it returns.
	return middleware as unknown as Middleware;
}

type MetricsOptions = Exclude<BrokerOptions["metrics"], boolean | undefined>;

/** Metrics options whose reporters are instances. */
export function metricsReportingTo(
	reporters: MetricReporters.Base[],
	options: Omit<MetricsOptions, "reporter">,
): MetricsOptions {
	// Cast: Moleculer takes a reporter instance, though its typings list only reporter names and { type, options }.
	return { ...options, reporter: reporters } as unknown as MetricsOptions;
}

/**
 * The part of the NATS client's connection a flush uses (Moleculer's typings leave its transporter's client untyped).
 */
export interface NatsFlushing {
	flush(): Promise<void>;
}

/**
 * A transporter that holds a client (NATS's, read at each use: a reconnect replaces it); undefined in one process or
 * when it holds none.
 */
export function transporterWithClient(broker: ServiceBroker): { readonly client: unknown } | undefined {
	const transporter = broker.transit?.tx;
	return transporter && "client" in transporter ? transporter : undefined;
}

/** Whether a transporter's client can flush (a NATS connection can; one not made yet, or gone, cannot). */
export function canFlush(client: unknown): client is NatsFlushing {
	return typeof client === "object" && client !== null && "flush" in client && typeof client.flush === "function";
}
