import { operations, route } from "./operation";
import { newPassword, text, textList, userName } from "./fields";
import { w } from "../wire/schema";
import {
	AccountDeletion,
	AuthResponse,
	GetAccessTokenResponse,
	JsonWebKeySet,
	RegistrationResponse,
} from "../records/accounts";
import { profile } from "./users";

export const accountsOperations = operations({
	Registration: {
		summary:
			"Create an account (UserName or Email, and a Password of 8 characters or more); AutoLogin signs in at once",
		action: "users.register",
		aliases: ["Register"],
		routes: [route("POST /register")],
		request: w.object({
			UserName: userName().allow(""),
			FirstName: profile.FirstName.optional().allow(""),
			LastName: profile.LastName.optional().allow(""),
			DisplayName: text(200),
			Email: profile.Email,
			Password: newPassword().required(),
			AutoLogin: w.boolean(),
			Continue: text(2000),
		}),
		response: RegistrationResponse,
		access: "public",
	},
	Auth: {
		summary:
			"Sign in (provider credentials, basic or digest), read the current session (no provider), or sign out (provider logout)",
		action: "sessions.authenticate",
		aliases: ["Authenticate"],
		routes: [route("GET /auth"), route("POST /auth"), route("GET /auth/:provider"), route("POST /auth/:provider")],
		request: w.object({
			provider: text(50),
			State: text(2000),
			oauth_token: text(2000),
			oauth_verifier: text(2000),
			UserName: text(254),
			Password: w.string().max(200).allow(""),
			RememberMe: w.boolean(),
			// The tokens go as ss-tok and ss-reftok cookies instead of in the answer.
			UseTokenCookie: w.boolean(),
			Continue: text(2000),
			nonce: text(500),
			uri: text(2000),
			response: text(500),
			qop: text(50),
			nc: text(50),
			cnonce: text(500),
		}),
		response: AuthResponse,
		access: "public",
	},
	GetAccessToken: {
		summary:
			"Trade a refresh token (RefreshToken, else the ss-reftok cookie) for a new bearer token and a new refresh token; " +
			"a refresh token traded twice ends its session",
		action: "sessions.accessToken",
		routes: [route("POST /access-token"), route("GET /access-token")],
		request: w.object({
			RefreshToken: w.string().max(200).allow(""),
			UseTokenCookie: w.boolean(),
			// The new bearer token may be limited to these scopes (`posts:read`…), as an API key may.
			Scopes: textList(),
		}),
		response: GetAccessTokenResponse,
		access: "public",
	},
	GetJsonWebKeySet: {
		summary: "The public keys that verify Plaza's bearer tokens (RS256), for other services to check them themselves",
		action: "sessions.jsonWebKeySet",
		// The `.json` suffix is a format: `/.well-known/jwks.json` is this route asked for JSON.
		routes: [route("GET /.well-known/jwks")],
		request: w.object({}),
		response: JsonWebKeySet,
		access: "public",
		reads: true,
	},
	DeleteAccount: {
		summary:
			"Delete one's account (with one's Password) or any (administrators): sessions, tokens and keys end at once; " +
			"posts, comments, connections, memberships, subscriptions, devices and media go",
		action: "users.deleteAccount",
		routes: [route("DELETE /Users/:Id"), route("POST /Users/:Id/Delete")],
		request: w.object({ Id: w.guid().required(), Password: w.string().max(200).allow("") }),
		response: AccountDeletion,
		access: "user",
		actors: ["Id"],
	},
});
