import { ActionHandler, ActionSchema, Context, Middleware } from "moleculer";
import { operationOf, Operation } from "./catalogue";
import { binderFor } from "./wire/bind";
import { validateRequest } from "./wire/validate";
import { callerOf, isAdmin } from "./caller";
import { failures } from "./errors";

/**
 * The one place every catalogue operation passes through, on whichever node runs it: the caller's
 * access is checked, the request bound case-insensitively, validated and converted to Plaza's inner
 * form. Actions receive clean params and never repeat these checks.
 */
export const operationsMiddleware: Middleware = {
	name: "PlazaOperations",
	localAction(handler: ActionHandler, action: ActionSchema) {
		const op = operationOf(action.name ?? "");
		if (!op) return handler;
		const bind = binderFor(op.request);
		return function checkedOperation(this: unknown, ctx: Context) {
			checkAccess(op, ctx);
			ctx.params = validateRequest(op.request, bind((ctx.params ?? {}) as Record<string, unknown>));
			return handler.call(this as never, ctx);
		};
	},
};

function checkAccess(op: Operation, ctx: Context): void {
	if (op.access !== "admin") return; // signed-in checks arrive with accounts
	const caller = callerOf(ctx);
	if (!caller) throw failures.unauthorized();
	if (!isAdmin(caller)) throw failures.forbidden(`${op.name} is for administrators only`);
}
