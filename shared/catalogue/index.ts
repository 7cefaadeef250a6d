import { Operation } from "./operation";
import { usersOperations } from "./users";
import { accountsOperations } from "./accounts";
import { graphOperations } from "./graph";
import { postsOperations } from "./posts";
import { venuesOperations } from "./venues";
import { systemsOperations } from "./systems";
import { descriptionOperations } from "./description";

export * from "./operation";

/** Every operation of the API. Adding one here (plus its action) is all it takes to publish it. */
export const catalogue: readonly Operation[] = [...accountsOperations, ...usersOperations, ...graphOperations, ...postsOperations, ...venuesOperations, ...systemsOperations, ...descriptionOperations];

const byFoldedName = new Map(catalogue.flatMap(op => [op.name, ...(op.aliases ?? [])].map(name => [name.toLowerCase(), op] as const)));
const byAction = new Map(catalogue.map(op => [op.action, op]));

/** The operation of that name, whatever its case. */
export function operationNamed(name: string): Operation | undefined {
	return byFoldedName.get(name.toLowerCase());
}

/** The operation an action performs. */
export function operationOf(action: string): Operation | undefined {
	return byAction.get(action);
}
