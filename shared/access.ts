import { Operation, scopeOf, scopes } from "./catalogue";
import { Caller, isAdmin } from "./caller";
import { failures } from "./errors";
import { parseGuid } from "./wire/guid";

/*
 * Whether a caller may call an operation: the same rule wherever an answer comes from, the operations middleware
 * before an action runs (checkAccess, then checkActors on the validated fields) and the gateway before it sends a kept
 * answer (checkSentCall).
 */

/** 401 for a caller who must sign in first, 403 for one without the Admin role an operation needs. */
export function checkAccess(op: Operation, caller: Caller | undefined): void {
	checkScope(op, caller);
	if (op.access === "public") return;
	if (!caller) throw failures.unauthorized();
	if (op.access === "admin" && !isAdmin(caller)) throw failures.forbidden(`${op.name} is for administrators only`);
}

/** A credential limited to scopes (an API key's) calls only operations of those scopes, public ones included. */
function checkScope(op: Operation, caller: Caller | undefined): void {
	if (!caller?.scopes) return;
	const scope = scopeOf(op);
	if (!caller.scopes.includes(scope))
		throw failures.forbidden(
			`This credential is limited to ${caller.scopes.join(", ") || "no scope"}; ${op.name} needs ${scope}`,
		);
}

/** 400 for scopes a credential is asked to be limited to that no operation has. */
export function checkScopes(requested: readonly string[] | undefined): void {
	const unknown = (requested ?? []).filter(scope => !scopes.includes(scope));
	if (unknown.length)
		throw failures.field("Scopes", "InvalidValue", `Unknown scopes ${unknown.join(", ")}; known: ${scopes.join(", ")}`);
}

/** Everyone but an admin acts only as themselves: each actor field must hold the caller's own id. */
export function checkActors(op: Operation, caller: Caller | undefined, params: Record<string, unknown>): void {
	if (!op.actors || isAdmin(caller)) return;
	for (const field of op.actors) {
		if (params[field] !== undefined && params[field] !== caller?.userId)
			throw failures.forbidden(`You may act only as yourself: ${field} is not your id`);
	}
}

/**
 * The same rule on a request's fields as sent (for an answer kept, so not run through the operations
 * middleware): actor fields found as binding finds them (the exact name first, else any case) and read as ids.
 */
export function checkSentCall(op: Operation, caller: Caller | undefined, sent: Record<string, unknown>): void {
	checkAccess(op, caller);
	if (!op.actors || isAdmin(caller)) return;
	const actors: Record<string, unknown> = {};
	for (const field of op.actors) {
		const value = sentField(sent, field);
		actors[field] = typeof value === "string" ? (parseGuid(value) ?? value) : (value ?? undefined);
	}
	checkActors(op, caller, actors);
}

function sentField(sent: Record<string, unknown>, field: string): unknown {
	if (Object.hasOwn(sent, field)) return sent[field];
	const folded = field.toLowerCase();
	for (const name of Object.keys(sent)) if (name.toLowerCase() === folded) return sent[name];
	return undefined;
}
