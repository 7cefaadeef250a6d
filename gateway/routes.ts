import { IncomingMessage, ServerResponse } from "node:http";
import { catalogue, Operation, operationNamed } from "../shared/catalogue";

/** moleculer-web calls alias handlers with the gateway service as `this`. */
type Handler = (this: unknown, req: IncomingMessage, res: ServerResponse) => void;

/** Which face of an operation a request came by: its REST route, or the generic route. */
export type Surface = "rest" | "generic";

/** Runs an operation for a request; a missing operation is handed over as undefined (404). */
export type Dispatch = (this: unknown, op: Operation | undefined, surface: Surface, req: IncomingMessage, res: ServerResponse) => void;

/** The aliases of one moleculer-web route: routes differ only by the largest body they read. */
export interface RouteGroup {
	maxBodyBytes: number;
	aliases: Record<string, Handler>;
}

/** The generic route's prefixes: ServiceStack's and the one newer clients call. */
const genericPrefixes = ["/json/reply", "/api"];

/**
 * moleculer-web aliases for the whole catalogue, grouped by body limit: every operation's REST routes,
 * and the generic route (`GET`/`POST /json/reply/{Operation}`, alias `/api/{Operation}`) with a
 * case-insensitive operation name. An operation that takes larger bodies (uploads) gets its generic
 * route spelled out in its own group (an exact path wins over `:operation` in moleculer-web). Methods
 * are explicit: a "REST" shorthand would add routes nobody declared.
 */
export function catalogueRoutes(dispatch: Dispatch, defaultBodyBytes: number): RouteGroup[] {
	const groups = new Map<number, Record<string, Handler>>([[defaultBodyBytes, {}]]);
	const group = (bytes: number) => groups.get(bytes) ?? groups.set(bytes, {}).get(bytes)!;
	const run = (op: Operation | undefined, surface: Surface): Handler =>
		function (req, res) {
			dispatch.call(this, op, surface, req, res);
		};

	for (const op of catalogue) {
		const aliases = group(op.maxBodyBytes ?? defaultBodyBytes);
		for (const r of op.routes) aliases[`${r.method} ${r.path}`] = run(op, "rest");
		if (op.maxBodyBytes && op.maxBodyBytes !== defaultBodyBytes) {
			for (const prefix of genericPrefixes) for (const name of [op.name, ...(op.aliases ?? [])]) aliases[`POST ${prefix}/${name}`] = run(op, "generic");
		}
	}
	const generic: Handler = function (req, res) {
		const name = (req as IncomingMessage & { $params: { operation: string } }).$params.operation;
		dispatch.call(this, operationNamed(name), "generic", req, res);
	};
	for (const prefix of genericPrefixes) {
		group(defaultBodyBytes)[`GET ${prefix}/:operation`] = generic;
		group(defaultBodyBytes)[`POST ${prefix}/:operation`] = generic;
	}
	return [...groups].map(([maxBodyBytes, aliases]) => ({ maxBodyBytes, aliases }));
}

/** The catalogue as a listing: what can be called, where, and by whom. */
export function operationListing() {
	return {
		Operations: catalogue.map(op => ({
			Name: op.name,
			Summary: op.summary,
			Access: op.access,
			Routes: [...op.routes.map(r => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`), `POST /json/reply/${op.name}`],
		})),
	};
}
