import { ActionHandler, ActionSchema, Context, Logger, Middleware, ServiceBroker } from "moleculer";

type Level = "info" | "debug";

/**
 * One structured log line per action a node serves: the action, the request id that follows the
 * call from the gateway through every service, the caller's node, the time taken and the outcome.
 */
export function callLogMiddleware(level: Level): Middleware {
	let logger: Logger;
	return {
		name: "PlazaCallLog",
		created(broker: ServiceBroker) {
			logger = broker.getLogger("calls");
		},
		localAction(handler: ActionHandler, action: ActionSchema) {
			const name = action.name ?? "";
			// Moleculer's own actions and the gateway's HTTP entry point (it logs requests itself) are left out.
			if (name.startsWith("$") || name.endsWith(".rest")) return handler;
			return function loggedCall(this: unknown, ctx: Context) {
				const started = process.hrtime.bigint();
				const log = (outcome: string) =>
					logger[level](
						{
							event: "call",
							action: name,
							requestID: ctx.requestID,
							caller: ctx.nodeID,
							ms: Number(process.hrtime.bigint() - started) / 1e6,
							outcome,
						},
						`${name} ${outcome}`,
					);
				return (handler.call(this as never, ctx) as Promise<unknown>).then(
					result => {
						log("ok");
						return result;
					},
					(err: { type?: string; name?: string }) => {
						log(err?.type ?? err?.name ?? "error");
						throw err;
					},
				);
			};
		},
	};
}
