import { record, w } from "../wire/schema";

/** SPEC.md §7 */
export const ResponseError = record("ResponseError", {
	ErrorCode: w.string(),
	FieldName: w.string(),
	Message: w.string(),
});

/** SPEC.md §7: the status every failure carries (and responses embed, empty on success). */
export const ResponseStatus = record("ResponseStatus", {
	ErrorCode: w.string(),
	Message: w.string(),
	StackTrace: w.string(),
	Errors: w.list(ResponseError),
});
