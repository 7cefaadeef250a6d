import Joi from "joi";
import { Infer } from "../wire/typed";
import { Domain } from "../domains";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface Route {
	method: HttpMethod;
	/** The REST path (find-my-way syntax); fields in `:Field` come from the path. */
	path: string;
}

/**
 * Who may call an operation (PRODUCT.md §3): anyone, a signed-in caller, or the Admin role.
 * Acting as another user through an actor field is refused except to admins.
 */
export type Access = "public" | "user" | "admin";

/** One operation of the API, declared once: every surface (REST, generic route, SOAP, docs) is made from it. */
export interface Operation {
	/** The request record's name: /json/reply/<name>, SOAP element, WSDL operation. */
	name: string;
	/** Other names the generic route answers to (ServiceStack clients call Auth "Authenticate"). */
	aliases?: string[];
	summary: string;
	/** The Moleculer action that performs it: "<service>.<action>". */
	action: string;
	routes: Route[];
	/** Request fields; converts wire values (GUIDs, dates, query strings) to Plaza's inner form. */
	request: Joi.ObjectSchema;
	/** The response record, or a list of one (`w.array().items(record)`). */
	response: Joi.Schema;
	access: Access;
	/**
	 * Request fields that name the acting user (AuthorId, OwnerId, …): they must be the caller's own
	 * id unless the caller is an admin (PRODUCT.md §3).
	 */
	actors?: string[];
	/** A read changes nothing, so it may be retried on another node. */
	reads?: boolean;
	/** The largest request body this operation takes, when it is more than the gateway's default (uploads). */
	maxBodyBytes?: number;
	/**
	 * The response is a file: its REST routes send the bytes of the record's base64 `Data` with its
	 * `ContentType` and `ETag` (the generic route and SOAP send the record itself).
	 */
	download?: boolean;
	/**
	 * The gateway may keep this read's answer, as ServiceStack's [CacheResponse] does: the action
	 * names in `ctx.meta.responseScope` who else gets the same answer (or nothing, when no one does),
	 * and the answer is kept until any write in one of `domains` (announced on the bus before the
	 * write answers). Not for operations with actor fields.
	 */
	cacheResponse?: { domains: Domain[] };
}

/** An operation as a domain file declares it: its name is its key in `operations({...})`. */
export type OperationSpec = Omit<Operation, "name" | "action"> & { action: `${string}.${string}` };

/** A declared operation, its types kept: the action that implements it is checked against them. */
export type DeclaredOperation<Name extends string, Spec extends OperationSpec> = Spec & { name: Name };

/** The params an operation's action receives (its request, validated and converted). */
export type RequestOf<Op extends Operation> = Infer<Op["request"]>;

/** What an operation's action answers (its response record, or a list of them). */
export type ResponseOf<Op extends Operation> = Infer<Op["response"]>;

/** A request field's name of an operation. */
type FieldOf<Spec> = Spec extends { request: infer Request } ? keyof Infer<Request> & string : never;

/**
 * A domain's operations, each named by its key; the keys' types are kept for `implement`. Actor
 * fields must be fields of the request.
 */
export function operations<Specs extends Record<string, OperationSpec>>(
	specs: Specs & { [K in keyof Specs]: { actors?: Array<FieldOf<Specs[K]>> } },
): { [K in keyof Specs & string]: DeclaredOperation<K, Specs[K]> } {
	return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, { name, ...spec }])) as {
		[K in keyof Specs & string]: DeclaredOperation<K, Specs[K]>;
	};
}

export function route(spec: `${HttpMethod} ${string}`): Route {
	const [method, path] = spec.split(" ") as [HttpMethod, string];
	return { method, path };
}
