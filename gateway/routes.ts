import Router from "find-my-way";
import { catalogue, Operation, operationNamed } from "../shared/catalogue";
import { PageHandler } from "./request";

/** Which face of an operation a request came by: its REST route, or the generic route. */
export type Surface = "rest" | "generic";

/** What a matched route runs: an operation of the catalogue (on a surface), or a page of the gateway's own. */
export type RouteTarget = { kind: "operation"; surface: Surface; operation: (params: Record<string, string | undefined>) => Operation | undefined } | { kind: "page"; page: PageHandler };

/** A route found for a request: what it runs and the fields its path held. */
export interface FoundRoute {
	target: RouteTarget;
	params: Record<string, string | undefined>;
}

/** The generic route's prefixes: ServiceStack's and the one newer clients call. */
const genericPrefixes = ["/json/reply", "/api"];

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * The gateway's routing table, made from the catalogue (find-my-way: a radix tree, so a lookup costs
 * the path's length, not the number of routes): every operation's REST routes; the generic route
 * (`GET`/`POST /json/reply/{Operation}`, alias `/api/{Operation}`) with a case-insensitive operation
 * name; and the gateway's own pages. Paths match case-insensitively with or without a trailing
 * slash, as ServiceStack's do; HEAD answers wherever GET does.
 */
export class Routes {
	private readonly router = Router({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 2000 });

	constructor(pages: Record<string, PageHandler>) {
		for (const op of catalogue) for (const r of op.routes) this.add(r.method as Method, r.path, { kind: "operation", surface: "rest", operation: () => op });
		const generic: RouteTarget = { kind: "operation", surface: "generic", operation: params => operationNamed(params.operation ?? "") };
		for (const prefix of genericPrefixes) for (const method of ["GET", "POST"] as const) this.add(method, `${prefix}/:operation`, generic);
		for (const [key, page] of Object.entries(pages)) {
			const [method, path] = key.split(" ");
			this.add(method as Method, path, { kind: "page", page });
		}
	}

	/** The route for a method and a path (no query string), or undefined. */
	find(method: string, path: string): FoundRoute | undefined {
		const found = this.router.find(method as Method, path);
		return found ? { target: found.store as RouteTarget, params: found.params } : undefined;
	}

	/** The methods a path answers to (for OPTIONS and 405-like answers). */
	methodsOf(path: string): string[] {
		return (["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const).filter(m => this.router.find(m, path) !== null);
	}

	private add(method: Method, path: string, target: RouteTarget): void {
		this.router.on(method === "GET" ? ["GET", "HEAD"] : method, path, noop, target);
	}
}

/** find-my-way wants a handler per route; the gateway reads the route's store instead. */
const noop = () => undefined;

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
