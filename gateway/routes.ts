import Router from "find-my-way";
import { catalogue, Operation, operationNamed, scopeOf } from "../shared/catalogue";
import { failures } from "../shared/errors";
import { PageHandler } from "./request";

/** Which face of an operation a request came by: its REST route, or the generic route. */
export type Surface = "rest" | "generic";

/**
 * What a matched route runs: an operation of the catalogue (on a surface; `oneWay` when it answers
 * 204 with no body, as /json/oneway does), or a page of the gateway's own.
 */
export type RouteTarget =
	| {
			kind: "operation";
			surface: Surface;
			oneWay?: boolean;
			operation: (params: Record<string, string | undefined>) => Operation | undefined;
	  }
	| { kind: "page"; page: PageHandler };

/** A route found for a request: what it runs and the fields its path held. */
export interface FoundRoute {
	target: RouteTarget;
	params: Record<string, string | undefined>;
}

/** The generic route's prefixes: ServiceStack's and the one newer clients call. */
const genericPrefixes = ["/json/reply", "/api"];

/** ServiceStack's one-way route: the operation runs, the answer is 204 with no body. */
const oneWayPrefix = "/json/oneway";

/** `/json/reply/FindPost[]`: ServiceStack's auto-batched requests, an array of FindPost requests in one body. */
const batchSuffix = "[]";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The verbs the generic route answers to: all of them, as ServiceStack's does. */
const verbs: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Stands in for a malformed path segment, to learn which route field it fell in. */
const malformedMarker = "malformed-escape-";

/**
 * The gateway's routing table, made from the catalogue (find-my-way's radix tree): REST routes, the generic route
 * (`/json/reply/{Operation}`, `/api/{Operation}`, `/json/oneway/{Operation}`, any verb, any case, `{Operation}[]` for
 * a batch) and the gateway's own pages. Paths match as ServiceStack's do (any case, trailing slash optional); HEAD
 * answers wherever GET does; a malformed %-escape is a 400, not a missing route.
 */
export class Routes {
	private readonly router = Router({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 2000 });

	constructor(pages: Record<string, PageHandler>) {
		for (const op of catalogue)
			for (const r of op.routes)
				this.add(r.method, r.path, { kind: "operation", surface: "rest", operation: () => op });
		const operation = (params: Record<string, string | undefined>) => operationNamed(unbatched(params.operation ?? ""));
		for (const prefix of genericPrefixes)
			for (const verb of verbs)
				this.add(verb, `${prefix}/:operation`, { kind: "operation", surface: "generic", operation });
		for (const verb of verbs)
			this.add(verb, `${oneWayPrefix}/:operation`, { kind: "operation", surface: "generic", oneWay: true, operation });
		for (const [key, page] of Object.entries(pages)) {
			const [method, path] = key.split(" ");
			this.add(method as Method, path, { kind: "page", page });
		}
	}

	/** The route for a method and a path (no query string), or undefined. */
	find(method: string, path: string): FoundRoute | undefined {
		this.refuseMalformedEscapes(path);
		const found = this.router.find(method as Method, path);
		return found ? { target: found.store as RouteTarget, params: found.params } : undefined;
	}

	/** The methods a path answers to (for OPTIONS and 405-like answers). */
	methodsOf(path: string): string[] {
		this.refuseMalformedEscapes(path);
		return methods.filter(m => this.router.find(m, path) !== null);
	}

	/**
	 * 400 for a path whose %-escapes do not decode (a % without two hex digits, bytes that are not
	 * UTF-8): find-my-way finds no route for it, which would say 404. The error names the route's
	 * field the bad segment is in, when a route has a field there.
	 */
	private refuseMalformedEscapes(path: string): void {
		if (!path.includes("%")) return;
		const segments = path.split("/");
		const malformed = segments.map(segment => !decodes(segment));
		if (!malformed.includes(true)) return;
		const standIn = segments.map((segment, i) => (malformed[i] ? `${malformedMarker}${i}` : segment)).join("/");
		const field = this.fieldHolding(standIn) ?? "path";
		throw failures.field(
			field,
			"InvalidValue",
			`The ${field} holds a malformed %-escape: % must be followed by two hex digits, and the bytes must be UTF-8`,
		);
	}

	/** The name of the route field that holds a stand-in for a malformed segment, on any route of the path. */
	private fieldHolding(standIn: string): string | undefined {
		for (const method of methods) {
			const params = this.router.find(method, standIn)?.params ?? {};
			const field = Object.keys(params).find(name => params[name]?.startsWith(malformedMarker));
			if (field) return field;
		}
		return undefined;
	}

	private add(method: Method, path: string, target: RouteTarget): void {
		this.router.on(method === "GET" ? ["GET", "HEAD"] : method, path, noop, target);
	}
}

/** Whether a found route is an auto-batched call of the generic route (`/json/reply/FindPost[]`). */
export function isBatch(found: FoundRoute): boolean {
	return (
		found.target.kind === "operation" &&
		found.target.surface === "generic" &&
		(found.params.operation ?? "").endsWith(batchSuffix)
	);
}

/** The operation's name without the batch suffix. */
function unbatched(name: string): string {
	return name.endsWith(batchSuffix) ? name.slice(0, -batchSuffix.length) : name;
}

function decodes(segment: string): boolean {
	try {
		decodeURIComponent(segment);
		return true;
	} catch {
		return false;
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
			Scope: scopeOf(op),
			Routes: [
				...op.routes.map(r => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
				`POST /json/reply/${op.name}`,
			],
		})),
	};
}
