import { record, w } from "../wire/schema";
import { ResponseStatus } from "./common";

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
	ResponseStatus: ResponseStatus,
});

/** SPEC.md §2.13 */
export const RegistrationResponse = record("RegistrationResponse", {
	UserId: w.string(),
	SessionId: w.string(),
	UserName: w.string(),
	ReferrerUrl: w.string(),
	ResponseStatus: ResponseStatus,
});
