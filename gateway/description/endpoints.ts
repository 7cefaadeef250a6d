import Joi from "joi";
import { Access, HttpMethod, Route, scopeOf } from "../../shared/catalogue";
import { requestShape } from "./shapes";

/** What the descriptions need of a catalogue operation. */
export interface DescribedOperation {
	name: string;
	aliases?: string[];
	summary: string;
	routes: Route[];
	request: Joi.ObjectSchema;
	response: Joi.Schema;
	access: Access;
	actors?: string[];
	/** Changes nothing: a write (not `reads`) takes an Idempotency-Key. */
	reads?: boolean;
}

/** One way to call an operation over HTTP. */
export interface Endpoint {
	op: DescribedOperation;
	method: HttpMethod;
	/** The path with `{Field}` placeholders. */
	path: string;
	/** Request fields taken from the path. */
	pathFields: string[];
	/** The resource (Swagger 1.x) or tag (OpenAPI) it is listed under: the path's first segment. */
	resource: string;
}

/** The REST routes of an operation, or its generic route when it has none. */
export function endpointsOf(op: DescribedOperation): Endpoint[] {
	const fields = requestShape(op).fields.map(f => f.name);
	const routes = op.routes.length ? op.routes : [{ method: "POST" as const, path: `/json/reply/${op.name}` }];
	return routes.map(r => {
		const pathFields: string[] = [];
		const path = r.path.replace(/:(\w+)\??/g, (_m, param: string) => {
			const field = fields.find(f => f.toLowerCase() === param.toLowerCase()) ?? param;
			pathFields.push(field);
			return `{${field}}`;
		});
		return { op, method: r.method, path, pathFields, resource: path.split("/")[1] ?? "" };
	});
}

/** Failures any call of the operation may meet, as far as its declaration tells (PRODUCT.md §2). */
export function errorStatuses(op: DescribedOperation): Array<{ code: number; reason: string }> {
	const statuses = [{ code: 400, reason: "A field is missing or not valid (ResponseStatus.Errors names each)" }];
	if (op.access !== "public") statuses.push({ code: 401, reason: "Not signed in, or the credentials are not valid" });
	if (op.access === "admin" || op.actors?.length)
		statuses.push({
			code: 403,
			reason: op.access === "admin" ? "Administrators only" : `${op.actors?.join(", ")} must be the caller's own id`,
		});
	statuses.push(
		{ code: 429, reason: "Too many requests (see Retry-After)" },
		{ code: 503, reason: "A backing service is unavailable" },
	);
	return statuses;
}

/** Who may call the operation, in words. */
export function accessNote(op: DescribedOperation): string {
	const who = {
		public: "Anyone may call it.",
		user: "Signed-in callers only.",
		admin: "Administrators only (the ADMIN_API_KEY, or a user with the Admin role).",
	}[op.access];
	const actors = op.actors?.length
		? ` ${op.actors.join(", ")} must be the caller's own id unless the caller is an administrator.`
		: "";
	const aliases = op.aliases?.length ? ` Also called ${op.aliases.join(", ")}.` : "";
	const scope = ` An API key limited to scopes needs ${scopeOf(op)}.`;
	return `${who}${actors}${scope}${aliases} Generic route: POST /json/reply/${op.name}; SOAP 1.1: the ${op.name} element at /soap11.`;
}
