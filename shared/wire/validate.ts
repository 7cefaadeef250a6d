import Joi from "joi";
import { FieldError, failures } from "../errors";

/** ServiceStack's ErrorCode for each joi failure; anything unlisted is InvalidValue. */
const errorCodes: Record<string, string> = {
	"any.required": "NotEmpty",
	"string.empty": "NotEmpty",
	"guid.base": "InvalidGuid",
	"number.max": "LessThanOrEqual",
	"number.min": "GreaterThanOrEqual",
	"string.max": "MaximumLength",
	"string.min": "MinimumLength",
	"array.max": "MaximumLength",
	"string.email": "Email",
};

const options: Joi.ValidationOptions = {
	abortEarly: false,
	convert: true,
	stripUnknown: true,
	errors: { wrap: { label: false } },
};

/** The request converted to Plaza's inner form, or a 400 PlazaError naming every bad field. */
export function validateRequest<T>(schema: Joi.ObjectSchema<T>, input: Record<string, unknown>): T {
	const result = schema.validate(input, options);
	if (result.error) throw failures.validation(result.error.details.map(toFieldError));
	return result.value;
}

function toFieldError(d: Joi.ValidationErrorItem): FieldError {
	const FieldName = d.path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
	return { ErrorCode: errorCodes[d.type] ?? "InvalidValue", FieldName, Message: d.message };
}
