import { operations, route } from "./operation";
import { text, textList } from "./fields";
import { w } from "../wire/schema";
import {
	AdminApiKeyResponse,
	AdminApiKeysResponse,
	EmptyResponse,
	UserApiKeyResponse,
	UserApiKeysResponse,
} from "../records/api-keys";

/** A key's id: a C# int, as ServiceStack's ApiKey.Id. */
const keyId = () => w.number().integer().min(1).max(2147483647);

/** What a key may be limited to: scopes of the catalogue (`posts:read`…), checked by the service. */
const keyFields = {
	Name: text(100),
	Scopes: textList(),
	ExpiryDate: w.timestamp(),
	Notes: text(1000),
};

const page = {
	Id: keyId(),
	Search: text(100),
	Skip: w.number().integer().min(0).default(0),
	Take: w.number().integer().min(1).max(1000).default(50),
};

/** An update as ServiceStack's: fields left out stay; `Reset` names the fields to clear. */
const update = {
	Id: keyId().required(),
	...keyFields,
	CancelledDate: w.timestamp(),
	Reset: textList(),
};

/**
 * API keys for programs, with ServiceStack's ApiKeysFeature names: a user's own keys, and an admin's for anyone.
 * A key is `ak-` and 32 hex digits, sent as `Authorization: Bearer`, `X-Api-Key` or the Basic user name.
 */
export const apiKeysOperations = operations({
	QueryUserApiKeys: {
		summary: "One's own API keys (never the keys themselves), newest first",
		action: "apiKeys.queryOwn",
		routes: [route("GET /apikeys")],
		request: w.object(page),
		response: UserApiKeysResponse,
		access: "user",
		reads: true,
	},
	CreateUserApiKey: {
		summary: "Make an API key for oneself, optionally limited to scopes and an expiry; the key is shown this once",
		action: "apiKeys.createOwn",
		routes: [route("POST /apikeys")],
		request: w.object(keyFields),
		response: UserApiKeyResponse,
		access: "user",
	},
	UpdateUserApiKey: {
		summary: "Rename, rescope or revoke (CancelledDate) one of one's API keys",
		action: "apiKeys.updateOwn",
		routes: [route("PUT /apikeys/:Id")],
		request: w.object(update),
		response: EmptyResponse,
		access: "user",
	},
	DeleteUserApiKey: {
		summary: "Delete one of one's API keys: it stops working on every gateway at once",
		action: "apiKeys.removeOwn",
		routes: [route("DELETE /apikeys/:Id")],
		request: w.object({ Id: keyId().required() }),
		response: EmptyResponse,
		access: "user",
	},
	AdminQueryApiKeys: {
		summary: "Every user's API keys, or one user's (administrators)",
		action: "apiKeys.query",
		routes: [route("GET /admin/apikeys")],
		request: w.object({ ...page, UserId: w.guid() }),
		response: AdminApiKeysResponse,
		access: "admin",
		reads: true,
	},
	AdminCreateApiKey: {
		summary: "Make an API key for a user (administrators); the key is shown this once",
		action: "apiKeys.create",
		routes: [route("POST /admin/apikeys")],
		request: w.object({ ...keyFields, UserId: w.guid().required() }),
		response: AdminApiKeyResponse,
		access: "admin",
	},
	AdminUpdateApiKey: {
		summary: "Rename, rescope or revoke any API key (administrators)",
		action: "apiKeys.update",
		routes: [route("PUT /admin/apikeys/:Id")],
		request: w.object(update),
		response: EmptyResponse,
		access: "admin",
	},
	AdminDeleteApiKey: {
		summary: "Delete any API key (administrators)",
		action: "apiKeys.remove",
		routes: [route("DELETE /admin/apikeys/:Id")],
		request: w.object({ Id: keyId().required() }),
		response: EmptyResponse,
		access: "admin",
	},
});
