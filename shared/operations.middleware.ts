import { ActionHandler, ActionSchema, Context, Middleware } from "moleculer";
import Joi from "joi";
import { operationOf } from "./catalogue";
import { binderFor } from "./wire/bind";
import { validateRequest } from "./wire/validate";
import { callerOf } from "./caller";
import { checkAccess, checkActors } from "./access";
import { runOnce } from "./idempotency/run-once";
import { Operation } from "./catalogue/operation";
import { hasDeclaredChanges } from "./changes/changes";
import { PlazaError } from "./errors";
import { auditAdminWrite } from "./audit";

/**
 * The one place every catalogue operation passes through, on whichever node runs it: the caller's
 * access is checked, the request bound case-insensitively, validated and converted to Plaza's inner
 * form. Actions receive clean params and never repeat these checks. A write sent with an
 * Idempotency-Key runs once per key and caller, and must state what it changed (changes.ts).
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
			return runOnce(ctx, op, async () => {
				const answer = (await handler.call(this as never, ctx)) as unknown;
				if (!op.reads && !hasDeclaredChanges(ctx)) undeclaredWrite(ctx, op);
				await auditAdminWrite(ctx, op, params);
				return answer;
			});
		};
	},
};

/**
 * A write that stated no change leaves every cache and stream as it was: a defect. Tests fail on it (a 500); a running
 * service logs it and answers, since the write itself committed.
 */
function undeclaredWrite(ctx: Context, op: Operation): void {
	const message = `${op.name} answered without stating what it changed (see shared/changes/changes.ts)`;
	if (process.env.NODE_ENV === "test") throw new PlazaError(500, "UndeclaredChanges", message);
	ctx.broker.getLogger("operations").error({ event: "undeclared-changes", operation: op.name }, message);
}
