import { ActionHandler, ActionSchema, Context, Logger, Middleware, ServiceBroker } from "moleculer";
import { failures } from "../errors";
import { callerOf, credentialOf } from "../caller";

declare module "moleculer/src/service" {
	interface ActionSchema {
		/** An internal action's (visibility "public") callers: the services (by name) whose actions may call it. */
		callers?: readonly string[];
	}
}

/**
 * Internal actions answer only the services they serve: each declares `callers`, and a call from
 * any other service, or from no service at all, is refused (403, logged as an audit warning). An
 * internal action that declares none refuses to start, so that a new one cannot be left open.
 */
export function internalCallers(): Middleware {
	let audit: Logger | undefined;
	return {
		name: "PlazaInternalCallers",
		created(broker: ServiceBroker) {
			audit = broker.getLogger("audit");
		},
		localAction(handler: ActionHandler, action: ActionSchema) {
			if (action.visibility !== "public") return handler;
			const name = action.name ?? "";
			const callers = action.callers;
			if (!callers?.length)
				throw new Error(`The internal action ${name} must declare its callers (e.g. callers: ["gateway"])`);
			return async function checkedCaller(this: unknown, ctx: Context) {
				if (!ctx.caller || !callers.includes(ctx.caller)) {
					audit?.warn(
						{
							event: "internal-call-refused",
							action: name,
							caller: ctx.caller ?? null,
							credential: credentialOf(callerOf(ctx)),
							callerNode: ctx.nodeID,
							requestID: ctx.requestID,
						},
						`Refused ${name} to ${ctx.caller ?? "a caller outside any service"}`,
					);
					throw failures.forbidden();
				}
				return handler.call(this as never, ctx) as unknown;
			};
		},
	};
}
