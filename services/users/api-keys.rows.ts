/** An API key as the apikeys domain keeps it: never the key itself, only its SHA-256 (hex). Times in ms. */
export interface ApiKeyRow {
	/** 1…2^31−1 (ServiceStack's ApiKey.Id is a C# int), random; unique. */
	Id: number;
	/** SHA-256 of the whole key, hex; unique. */
	KeyHash: string;
	/** What a list shows of the key: "ak-***" and its last 3 characters. */
	VisibleKey: string;
	Name: string;
	UserId: string;
	UserName?: string;
	/** The scopes the key is limited to (`posts:read`…); empty: the user's whole access. */
	Scopes: string[];
	Notes?: string;
	CreatedDate: number;
	ExpiryDate?: number;
	CancelledDate?: number;
}

/** What an update may change; `undefined` leaves a field as it is, `null` clears it. */
export interface ApiKeyChanges {
	Name?: string;
	Scopes?: string[];
	Notes?: string | null;
	ExpiryDate?: number | null;
	CancelledDate?: number | null;
}

/** Which keys a page lists: one user's (a user's own list) or any (an admin's), optionally by name or notes. */
export interface ApiKeyFilter {
	userId?: string;
	/** Case-insensitive substring of Name or Notes. */
	search?: string;
}
