import { IncomingMessage, ServerResponse } from "node:http";
import { catalogue, Operation, operationNamed } from "../shared/catalogue";

/** moleculer-web calls alias handlers with the gateway service as `this`. */
type Handler = (this: unknown, req: IncomingMessage, res: ServerResponse) => void;

/** Runs an operation for a request; a missing operation is handed over as undefined (404). */
export type Dispatch = (this: unknown, op: Operation | undefined, req: IncomingMessage, res: ServerResponse) => void;

/** The generic route's prefixes: ServiceStack's and the one newer clients call. */
const genericPrefixes = ["/json/reply", "/api"];

/**
 * moleculer-web aliases for the whole catalogue: every operation's REST routes, and the generic
 * route (`GET`/`POST /json/reply/{Operation}`, alias `/api/{Operation}`) with a case-insensitive
 * operation name. Methods are explicit: a "REST" shorthand would add routes nobody declared.
 */
export function catalogueAliases(dispatch: Dispatch): Record<string, Handler> {
	const aliases: Record<string, Handler> = {};
	for (const op of catalogue) {
		for (const r of op.routes) aliases[`${r.method} ${r.path}`] = function (req, res) {
			dispatch.call(this, op, req, res);
		};
	}
	const generic: Handler = function (req, res) {
		const name = (req as IncomingMessage & { $params: { operation: string } }).$params.operation;
		dispatch.call(this, operationNamed(name), req, res);
	};
	for (const prefix of genericPrefixes) {
		aliases[`GET ${prefix}/:operation`] = generic;
		aliases[`POST ${prefix}/:operation`] = generic;
	}
	return aliases;
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
