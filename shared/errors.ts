import { Errors } from "moleculer";

/** A field-level error of a ResponseStatus (SPEC.md §7). */
export interface FieldError {
	ErrorCode: string;
	FieldName: string;
	Message: string;
}

/**
 * A failure the client caused or should know about: HTTP status in `code`, ServiceStack ErrorCode in
 * `type`, field errors in `data`. Plain fields only, so it crosses the message bus unchanged.
 */
export class PlazaError extends Errors.MoleculerClientError {
	constructor(status: number, errorCode: string, message: string, fieldErrors: FieldError[] = []) {
		super(message, status, errorCode, { errors: fieldErrors });
		this.name = "PlazaError";
	}
}

export const failures = {
	/** 400, ErrorCode of the first field error, as ServiceStack's validation does. */
	validation: (errors: FieldError[]) =>
		new PlazaError(400, errors[0]?.ErrorCode ?? "InvalidValue", errors[0]?.Message ?? "Invalid request", errors),
	field: (FieldName: string, ErrorCode: string, Message: string) =>
		failures.validation([{ ErrorCode, FieldName, Message }]),
	invalidBody: (message = "The request body could not be read") => new PlazaError(400, "InvalidBody", message),
	unauthorized: (message = "Sign in to do this") => new PlazaError(401, "Unauthorized", message),
	forbidden: (message = "You are not allowed to do this") => new PlazaError(403, "Forbidden", message),
	notFound: (what: string) => new PlazaError(404, "NotFound", `${what} was not found`),
	alreadyExists: (fieldName?: string, message = "The record already exists") =>
		new PlazaError(
			409,
			"AlreadyExists",
			message,
			fieldName ? [{ ErrorCode: "AlreadyExists", FieldName: fieldName, Message: message }] : [],
		),
	tooManyRequests: (retryAfterSeconds: number, message = "Too many requests; slow down") => {
		const error = new PlazaError(429, "TooManyRequests", message);
		(error.data as { retryAfter?: number }).retryAfter = retryAfterSeconds;
		return error;
	},
	payloadTooLarge: (limitBytes: number, what = "The request body") =>
		new PlazaError(413, "PayloadTooLarge", `${what} is larger than ${limitBytes} bytes`),
	serviceUnavailable: () => new PlazaError(503, "ServiceUnavailable", "The service is unavailable; try again later"),
};
