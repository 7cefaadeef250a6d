import { randomBytes } from "node:crypto";
import { errors, JWTVerifyGetKey, jwtVerify, KeyLike, SignJWT } from "jose";
import { Caller } from "../caller";

/** The `iss` of Plaza's bearer tokens. */
export const tokenIssuer = "plaza";

/** RS256: what ServiceStack's JwtAuthProviderReader and most JWT libraries verify from a published RSA key. */
export const tokenAlgorithm = "RS256";

/** The key a node signs with: its private half, and its `kid`. */
export interface SigningKey {
	kid: string;
	privateKey: KeyLike;
}

/**
 * A bearer token for a caller of a session: its claims are ServiceStack's (sub, name, preferred_username, roles),
 * `sid`, the session it lives and ends with, and `scope` when the caller is limited to scopes.
 */
export async function signBearerToken(key: SigningKey, caller: Caller, sessionKey: string, ttlSeconds: number) {
	const issuedAt = Math.floor(Date.now() / 1000);
	const token = await new SignJWT({
		name: caller.displayName,
		preferred_username: caller.userName,
		roles: caller.roles,
		sid: sessionKey,
		...(caller.scopes ? { scope: caller.scopes.join(" ") } : {}),
	})
		.setProtectedHeader({ alg: tokenAlgorithm, typ: "JWT", kid: key.kid })
		.setIssuer(tokenIssuer)
		.setSubject(String(caller.userId))
		.setIssuedAt(issuedAt)
		.setExpirationTime(issuedAt + ttlSeconds)
		.setJti(randomBytes(12).toString("base64url"))
		.sign(key.privateKey);
	return { token, expiresAt: (issuedAt + ttlSeconds) * 1000 };
}

/** Why a bearer token was refused: ServiceStack tells an expired token (TokenException) from a bad one. */
export type Refusal = "expired" | "unknown-key" | "invalid";

/** The caller a bearer token stands for, checked against the published keys (`createLocalJWKSet`), or why not. */
export async function verifyBearerToken(
	token: string,
	keys: JWTVerifyGetKey,
): Promise<{ caller: Caller } | { refused: Refusal }> {
	try {
		const { payload } = await jwtVerify(token, keys, {
			issuer: tokenIssuer,
			algorithms: [tokenAlgorithm],
			typ: "JWT",
		});
		const { sub, name, preferred_username, roles, sid, scope } = payload;
		if (!sub || typeof sid !== "string" || !Array.isArray(roles)) return { refused: "invalid" };
		return {
			caller: {
				userId: sub,
				userName: typeof preferred_username === "string" ? preferred_username : "",
				displayName: typeof name === "string" ? name : "",
				roles: roles.map(String),
				sessionKey: sid,
				// OAuth's space-separated scopes: the token was limited to them when it was made.
				...(typeof scope === "string" ? { scopes: scope.split(" ").filter(Boolean) } : {}),
			},
		};
	} catch (err) {
		if (err instanceof errors.JWTExpired) return { refused: "expired" };
		if (err instanceof errors.JWKSNoMatchingKey) return { refused: "unknown-key" };
		return { refused: "invalid" };
	}
}
