import { ActionHandler, ActionSchema, Context, Middleware } from "moleculer";
import Joi from "joi";
import { operationOf } from "./catalogue";
import { binderFor } from "./wire/bind";
import { validateRequest } from "./wire/validate";
import { callerOf } from "./caller";
import { checkAccess, checkActors } from "./access";
import { runOnce } from "./idempotency/run-once";

/**
 * The one place every catalogue operation passes through, on whichever node runs it: the caller's
 * access is checked, the request bound case-insensitively, validated and converted to Plaza's inner
 * form. Actions receive clean params and never repeat these checks. A write sent with an
 * Idempotency-Key runs once per key and caller.
 */
export const operationsMiddleware: Middleware = {
	name: "PlazaOperations",
	localAction(handler: ActionHandler, action: ActionSchema) {
		const op = operationOf(action.name ?? "");
		if (!op) return handler;
		const bind = binderFor(op.request);
		// Async, so that a refusal is a rejected promise: thrown synchronously inside Moleculer's bulkhead, it would keep
		// its slot for good.
		return async function checkedOperation(this: unknown, ctx: Context) {
			checkAccess(op, callerOf(ctx));
			const params = validateRequest(
				op.request as Joi.ObjectSchema<Record<string, unknown>>,
				bind((ctx.params ?? {}) as Record<string, unknown>),
			);
			checkActors(op, callerOf(ctx), params);
			ctx.params = params;
			// A write with an Idempotency-Key runs once per key; its answer is kept where it runs (see runOnce).
			return runOnce(ctx, op, () => handler.call(this as never, ctx) as Promise<unknown>);
		};
	},
};
