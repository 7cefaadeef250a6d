/** A refresh token as the sessions domain keeps it: its SHA-256 only, and the session it renews. Times in ms. */
export interface RefreshTokenRow {
	/** SHA-256 of the token, hex. */
	Id: string;
	/** The session (its key) the token belongs to: the token lives and ends with it. */
	SessionKey: string;
	CreatedTime: number;
	ExpiresTime: number;
	/** When it was traded for a new pair; a second trade is a theft (the whole session ends). */
	UsedTime?: number;
}

/** A key that signs bearer tokens: its private half sealed with the server's secret, its public half as a JWK. */
export interface SigningKeyRow {
	/** The JWT header's `kid`. */
	Kid: string;
	SealedPrivateKey: string;
	/** JSON of the public JWK (kty, n, e, kid, alg, use). */
	PublicJwk: string;
	CreatedTime: number;
}
