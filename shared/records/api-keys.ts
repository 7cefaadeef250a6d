import { record, w } from "../wire/schema";
import { ResponseStatus } from "./common";

/** ServiceStack's PartialApiKey (ApiKeysFeature): what a list shows of a key, never the key itself. */
export const PartialApiKey = record("PartialApiKey", {
	Id: w.number().integer(),
	Name: w.string(),
	UserId: w.guid(),
	UserName: w.string(),
	VisibleKey: w.string(),
	CreatedDate: w.timestamp(),
	ExpiryDate: w.timestamp(),
	CancelledDate: w.timestamp(),
	Scopes: w.array().items(w.string()),
	Notes: w.string(),
	Active: w.boolean(),
});

/** A page of keys (ServiceStack's UserApiKeysResponse and AdminApiKeysResponse have this shape). */
const keysResponse = (name: string) =>
	record(name, { Results: w.array().items(PartialApiKey), ResponseStatus: ResponseStatus });

/** A new key: `Result` is the key itself, shown this once (only its hash is kept). */
const keyResponse = (name: string) => record(name, { Result: w.string(), ResponseStatus: ResponseStatus });

export const UserApiKeysResponse = keysResponse("UserApiKeysResponse");
export const AdminApiKeysResponse = keysResponse("AdminApiKeysResponse");
export const UserApiKeyResponse = keyResponse("UserApiKeyResponse");
export const AdminApiKeyResponse = keyResponse("AdminApiKeyResponse");

/** ServiceStack's EmptyResponse. */
export const EmptyResponse = record("EmptyResponse", { ResponseStatus: ResponseStatus });
