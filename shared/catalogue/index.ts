import { Operation } from "./operation";
import { usersOperations } from "./users";
import { accountsOperations } from "./accounts";
import { graphOperations } from "./graph";
import { postsOperations } from "./posts";
import { venuesOperations } from "./venues";
import { systemsOperations } from "./systems";
import { descriptionOperations } from "./description";

export * from "./operation";
export {
	usersOperations,
	accountsOperations,
	graphOperations,
	postsOperations,
	venuesOperations,
	systemsOperations,
	descriptionOperations,
};

/**
 * Every operation of the API. Declaring one in its domain's `operations({...})` (and `implement`ing it in its service)
 * is all it takes to publish it.
 */
export const catalogue: readonly Operation[] = [
	accountsOperations,
	usersOperations,
	graphOperations,
	postsOperations,
	venuesOperations,
	systemsOperations,
	descriptionOperations,
].flatMap((domain: Record<string, Operation>) => Object.values(domain));

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
