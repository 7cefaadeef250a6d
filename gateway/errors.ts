import { FieldError } from "../shared/errors";

/** SPEC.md §7 ResponseStatus, as every failure carries it. */
export interface ResponseStatus {
	ErrorCode: string;
	Message: string;
	StackTrace?: string;
	Errors: FieldError[];
	/** ServiceStack's extra facts about the failure (AutoBatchIndex: which request of a batch failed). */
	Meta?: Record<string, string>;
}

export interface Failure {
	status: number;
	responseStatus: ResponseStatus;
	/** True when the server, not the client, is at fault: worth an error log. */
	internal: boolean;
	/** Seconds a 429 or 503 asks the client to wait (Retry-After), when known. */
	retryAfter?: number;
}

interface ErrorLike {
	name?: string;
	message?: string;
	code?: unknown;
	type?: unknown;
	status?: unknown;
	stack?: string;
	data?: { errors?: FieldError[]; retryAfter?: number };
}

/**
 * Moleculer's own failures of reaching a service: the caller should retry later (503). A write's
 * timeout or lost node never gets here as such: gateway/perform.ts makes it 504 OutcomeUnknown.
 */
const unavailable = new Set([
	"ServiceNotFoundError",
	"ServiceNotAvailableError",
	"RequestTimeoutError",
	"RequestSkippedError",
	"RequestRejectedError",
	"QueueIsFullError",
	"BrokerDisconnectedError",
]);

/**
 * The HTTP status and ResponseStatus of any error (PRODUCT.md §2), for every surface. Messages of
 * unexpected errors never reach a client outside development mode.
 */
export function describeFailure(error: unknown, development: boolean): Failure {
	const err = (error ?? {}) as ErrorLike;
	const failure = classify(err);
	if (development && err.stack) failure.responseStatus.StackTrace = err.stack;
	return failure;
}

function classify(err: ErrorLike): Failure {
	const client = (status: number, ErrorCode: string, Message: string, Errors: FieldError[] = []): Failure => ({
		status,
		responseStatus: { ErrorCode, Message, Errors },
		internal: false,
	});

	if (err.name === "PlazaError" && typeof err.code === "number" && typeof err.type === "string") {
		return {
			...client(err.code, err.type, err.message ?? err.type, err.data?.errors ?? []),
			internal: err.code >= 500,
			retryAfter: err.data?.retryAfter,
		};
	}
	if (err.name && unavailable.has(err.name)) {
		return {
			...client(503, "ServiceUnavailable", "The service is unavailable; try again later"),
			internal: true,
			retryAfter: 1,
		};
	}
	// body-parser's request errors, and the router's
	switch (err.type ?? err.name) {
		case "entity.parse.failed":
			return client(400, "InvalidBody", "The request body is not valid JSON");
		case "entity.too.large":
		case "PAYLOAD_TOO_LARGE":
			return client(413, "PayloadTooLarge", "The request body is too large");
		case "encoding.unsupported":
		case "charset.unsupported":
			return client(415, "InvalidBody", "The request body's encoding is not supported");
		case "request.aborted":
		case "request.size.invalid":
			return client(400, "InvalidBody", "The request body was incomplete");
		case "NOT_FOUND":
			return client(404, "NotFound", "No such route");
		case "RateLimitExceeded":
			return client(429, "TooManyRequests", "Too many requests; slow down");
	}
	// Any other request error body-parser (http-errors) marks as the client's, by its 4xx status.
	if (
		typeof err.status === "number" &&
		err.status >= 400 &&
		err.status < 500 &&
		(err as { expose?: unknown }).expose === true
	) {
		return client(
			err.status === 413 ? 413 : 400,
			err.status === 413 ? "PayloadTooLarge" : "InvalidBody",
			"The request body could not be read",
		);
	}
	return {
		status: 500,
		responseStatus: { ErrorCode: "InternalError", Message: "An internal error occurred", Errors: [] },
		internal: true,
	};
}
