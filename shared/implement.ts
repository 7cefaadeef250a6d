import { ActionSchema, Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { Operation, RequestOf, ResponseOf } from "./catalogue/operation";
import { CallerMeta, RequestMeta, ResponseScopeMeta } from "./caller";

/**
 * The operation each implementing action performs. Kept beside the action, not on it: Moleculer
 * sends its actions' own fields to every node (INFO packets), and an operation's schemas are large.
 */
const performed = new WeakMap<object, Operation>();

/** The catalogue operation an action of a service schema implements, if it was made by `implement`. */
export function operationImplementedBy(action: unknown): Operation | undefined {
	return typeof action === "object" && action !== null ? performed.get(action) : undefined;
}

/** What the gateway and the operations middleware tell an operation's action, and what it may answer back. */
export type OperationMeta = RequestMeta & CallerMeta & ResponseScopeMeta;

/** An operation's action: its params and its answer are the operation's request and response. */
export type OperationHandler<Op extends Operation, This> = (
	this: This,
	ctx: Context<RequestOf<Op>, OperationMeta>,
) => Promise<ResponseOf<Op>>;

/** The action's key in its service: "posts.create" is the action `create` of the service `posts`. */
export type ActionKey<Op extends Operation> = Op["action"] extends `${string}.${infer Key}` ? Key : never;

/** The key an action is registered under, from its operation's wire name. */
export function actionKeyOf(op: Operation): string {
	return op.action.slice(op.action.indexOf(".") + 1);
}

/**
 * A service's typed parts, `this` being the service with its methods and the variables its mixins and `created` set:
 * - implement(op, handler): the action for a catalogue operation, checked against its request and response types and
 *   run behind the operations middleware (docs/architecture.md, The operations middleware)
 * - define(schema): the schema, its handlers and methods typed with `this`, as Moleculer's broker takes it
 */
export function typedService<Methods extends object = object, Vars extends object = object>() {
	type This = Service & Vars & Methods;
	return {
		implement: <Op extends Operation>(
			op: Op,
			handler: OperationHandler<Op, This>,
		): Record<ActionKey<Op>, ActionSchema<This>> => {
			const action: ActionSchema<This> = { handler };
			performed.set(action, op);
			// A computed key widens to `string`: the key is the operation's own (see ActionKey).
			return { [actionKeyOf(op)]: action } as Record<ActionKey<Op>, ActionSchema<This>>;
		},
		define: (schema: ServiceSchema<ServiceSettingSchema, Methods, Vars>): ServiceSchema => {
			// The one widening: Moleculer types `this` from the schema's own methods and vars, but its
			// broker takes schemas whose `this` knows none of them (handlers are contravariant in it).
			return schema as ServiceSchema;
		},
	};
}
