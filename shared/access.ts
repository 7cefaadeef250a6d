import { Operation } from "./catalogue";
import { Caller, isAdmin } from "./caller";
import { failures } from "./errors";

/**
 * Whether a caller may call an operation with these (bound) fields: the same rule wherever an answer
 * comes from, the operations middleware before an action runs and the gateway before it sends a
 * kept answer.
 */
export function checkCall(op: Operation, caller: Caller | undefined, params: Record<string, unknown>): void {
	checkAccess(op, caller);
	checkActors(op, caller, params);
}

/** 401 for a caller who must sign in first, 403 for one without the Admin role an operation needs. */
export function checkAccess(op: Operation, caller: Caller | undefined): void {
	if (op.access === "public") return;
	if (!caller) throw failures.unauthorized();
	if (op.access === "admin" && !isAdmin(caller)) throw failures.forbidden(`${op.name} is for administrators only`);
}

/** Everyone but an admin acts only as themselves: each actor field must hold the caller's own id. */
export function checkActors(op: Operation, caller: Caller | undefined, params: Record<string, unknown>): void {
	if (!op.actors || isAdmin(caller)) return;
	for (const field of op.actors) {
		if (params[field] !== undefined && params[field] !== caller?.userId)
			throw failures.forbidden(`You may act only as yourself: ${field} is not your id`);
	}
}
