import { record, w } from "../wire/schema";
import { ResponseStatus } from "./common";

/** A sign-in's bearer and refresh tokens (ServiceStack's JwtAuthProvider): absent when they went as cookies. */
const tokenFields = () => ({ BearerToken: w.string(), RefreshToken: w.string(), RefreshTokenExpiry: w.timestamp() });

/**
 * SPEC.md §5, with UserId and DisplayName added where ServiceStack's AuthenticateResponse has them:
 * a client that signs in wants to know who it is.
 */
export const AuthResponse = record("AuthResponse", {
	UserId: w.string(),
	SessionId: w.string(),
	UserName: w.string(),
	DisplayName: w.string(),
	ReferrerUrl: w.string(),
	...tokenFields(),
	ResponseStatus: ResponseStatus,
});

/** SPEC.md §2.13 */
export const RegistrationResponse = record("RegistrationResponse", {
	UserId: w.string(),
	SessionId: w.string(),
	UserName: w.string(),
	ReferrerUrl: w.string(),
	...tokenFields(),
	ResponseStatus: ResponseStatus,
});

/**
 * ServiceStack's GetAccessTokenResponse, with the rotated refresh token (RefreshToken) it does not have, and
 * `accessToken` again by the camelCase name @servicestack/client reads after a refresh.
 */
export const GetAccessTokenResponse = record("GetAccessTokenResponse", {
	AccessToken: w.string(),
	accessToken: w.string(),
	RefreshToken: w.string(),
	RefreshTokenExpiry: w.timestamp(),
	ResponseStatus: ResponseStatus,
});

/** One public key of the set that verifies Plaza's bearer tokens (RFC 7517's names). */
export const JsonWebKey = record("JsonWebKey", {
	kty: w.string(),
	kid: w.string(),
	use: w.string(),
	alg: w.string(),
	n: w.string(),
	e: w.string(),
});

/** RFC 7517's key set, as `/.well-known/jwks.json` publishes it. */
export const JsonWebKeySet = record("JsonWebKeySet", { keys: w.array().items(JsonWebKey) });

/** Where an account's deletion stands: Done, or Pending (a domain was out of reach; the sweep finishes it). */
export const AccountDeletion = record("AccountDeletion", {
	UserId: w.guid(),
	Status: w.string(),
	ResponseStatus: ResponseStatus,
});
