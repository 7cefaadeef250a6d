import { Operation } from "./operation";
import { usersOperations } from "./users";
import { accountsOperations } from "./accounts";
import { graphOperations } from "./graph";
import { postsOperations } from "./posts";
import { venuesOperations } from "./venues";
import { systemsOperations } from "./systems";
import { descriptionOperations } from "./description";
import { apiKeysOperations } from "./api-keys";
import { reportsOperations } from "./reports";
import { exportsOperations } from "./exports";

export * from "./operation";
export {
	usersOperations,
	accountsOperations,
	graphOperations,
	postsOperations,
	venuesOperations,
	systemsOperations,
	descriptionOperations,
	apiKeysOperations,
	reportsOperations,
	exportsOperations,
};

/** The operations by the part of the API they belong to: a scope names the part (see scopeOf). */
const parts: Record<string, Record<string, Operation>> = {
	accounts: accountsOperations,
	users: usersOperations,
	graph: graphOperations,
	posts: postsOperations,
	venues: venuesOperations,
	systems: systemsOperations,
	description: descriptionOperations,
	apikeys: apiKeysOperations,
	reports: reportsOperations,
	exports: exportsOperations,
};

/**
 * Every operation of the API. Declaring one in its domain's `operations({...})` (and `implement`ing it in its service)
 * is all it takes to publish it.
 */
export const catalogue: readonly Operation[] = Object.values(parts).flatMap(part => Object.values(part));

const partOf = new Map(Object.entries(parts).flatMap(([part, ops]) => Object.values(ops).map(op => [op.name, part])));

/** The scope an API key or token must hold to call `op`: its part of the API and whether it reads or writes. */
export function scopeOf(op: Pick<Operation, "name" | "reads">): string {
	return `${partOf.get(op.name)}:${op.reads ? "read" : "write"}`;
}

/** Every scope a credential may be limited to. */
export const scopes: readonly string[] = [...new Set(catalogue.map(scopeOf))].sort();

const byFoldedName = new Map(
	catalogue.flatMap(op => [op.name, ...(op.aliases ?? [])].map(name => [name.toLowerCase(), op] as const)),
);
const byAction = new Map(catalogue.map(op => [op.action, op]));

/** The operation of that name, whatever its case. */
export function operationNamed(name: string): Operation | undefined {
	return byFoldedName.get(name.toLowerCase());
}

/** The operation an action performs. */
export function operationOf(action: string): Operation | undefined {
	return byAction.get(action);
}
