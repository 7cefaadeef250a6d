import { IncomingMessage, ServerResponse } from "node:http";
import { Context } from "moleculer";
import { FormatRequest } from "./respond";
import { IdentifiedRequest } from "./identify";
import { PerformedRequest } from "./perform";

/** A request as the gateway's handlers see it: its broker context, its bound params, its parsed body. */
export interface GatewayRequest extends FormatRequest, IdentifiedRequest, PerformedRequest {
	/** The request's broker context: its meta carries the caller to every service. */
	$ctx: Context;
	/** Query, body and path fields in one object (a path field wins, then the query, then the body). */
	$params: Record<string, unknown>;
	/** The parsed JSON or form body, when there was one. */
	body?: unknown;
	/**
	 * The index of the auto-batched request that failed, which its failure names in ResponseStatus.Meta (see
	 * gateway/batch.ts).
	 */
	$autoBatchIndex?: number;
}

/** What a route of the gateway's own (health, SOAP, the description) does; a failure goes to `next`. */
export type PageHandler = (req: GatewayRequest, res: ServerResponse, next: (err?: unknown) => void) => void;

export type { IncomingMessage };
