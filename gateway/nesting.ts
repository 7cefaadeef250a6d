import { failures } from "../shared/errors";

/**
 * The deepest nesting of objects and lists a request may carry, the request object itself counting
 * as one: System.Text.Json's default MaxDepth. No request of the catalogue comes near it, and every
 * later reader (binding, validation, the response cache's key, the bus) may then recurse safely.
 */
export const maxNesting = 64;

/**
 * Refuses a parsed body (JSON, XML fields) whose objects and lists nest deeper than maxNesting: 400 InvalidBody.
 * Iterative, so any depth is measured.
 */
export function refuseDeepBody(body: unknown): void {
	const pending: Array<[value: unknown, depth: number]> = [[body, 1]];
	for (let next = pending.pop(); next; next = pending.pop()) {
		const [value, depth] = next;
		if (value === null || typeof value !== "object") continue;
		if (depth > maxNesting) throw failures.invalidBody(`The request body nests deeper than ${maxNesting} levels`);
		for (const child of Object.values(value)) pending.push([child, depth + 1]);
	}
}

/**
 * Refuses form or query field names that nest deeper than maxNesting (`a[b][c]…`: each bracket one level below the
 * request).
 */
export function refuseDeepFieldNames(names: Iterable<string>, where: string): void {
	for (const name of names) {
		let depth = 1;
		for (let at = name.indexOf("["); at >= 0; at = name.indexOf("[", at + 1)) depth++;
		if (depth > maxNesting)
			throw failures.invalidBody(`${where} has field names nested deeper than ${maxNesting} levels`);
	}
}
