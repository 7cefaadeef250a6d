import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** HTTP Digest (RFC 2617, qop "auth"): the realm, the stored hash, and stateless expiring nonces. */
export const digestRealm = "/auth/digest";
export const nonceLifetimeMs = 5 * 60 * 1000;

const md5 = (text: string) => createHash("md5").update(text).digest("hex");

/** HA1, the password-equivalent a user record keeps when Digest is on. */
export function digestHa1(userName: string, password: string): string {
	return md5(`${userName}:${digestRealm}:${password}`);
}

export interface DigestAnswer {
	username: string;
	realm: string;
	nonce: string;
	uri: string;
	response: string;
	qop?: string;
	nc?: string;
	cnonce?: string;
	/** The HTTP method of the request the answer came with. */
	method: string;
}

/** Whether an answer proves knowledge of the password behind `ha1`. */
export function digestMatches(answer: DigestAnswer, ha1: string): boolean {
	const ha2 = md5(`${answer.method}:${answer.uri}`);
	const expected =
		answer.qop === "auth"
			? md5(`${ha1}:${answer.nonce}:${answer.nc}:${answer.cnonce}:auth:${ha2}`)
			: md5(`${ha1}:${answer.nonce}:${ha2}`);
	const a = Buffer.from(expected);
	const b = Buffer.from(answer.response);
	return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The answer's nonce count (RFC 2617 §3.2.2: 8 hex digits with qop, which must grow with each use of
 * a nonce), 0 without qop (such a nonce is good once), or undefined when it is malformed.
 */
export function nonceCount(answer: DigestAnswer): number | undefined {
	if (answer.qop === undefined) return 0;
	return answer.nc && /^[0-9a-f]{8}$/i.test(answer.nc) ? parseInt(answer.nc, 16) : undefined;
}

/** Makes and checks nonces signed with a secret: no server state, valid for five minutes. */
export class NonceSigner {
	private readonly secret: Buffer;

	constructor(secret?: string) {
		this.secret = secret ? Buffer.from(secret) : randomBytes(32);
	}

	issue(now = Date.now()): string {
		return Buffer.from(`${now}:${this.sign(String(now))}`).toString("base64");
	}

	/** "valid", "stale" (well signed but too old: the client may retry with a new nonce) or "invalid". */
	check(nonce: string, now = Date.now()): "valid" | "stale" | "invalid" {
		const [time, signature] = Buffer.from(nonce, "base64").toString().split(":");
		if (!time || !signature) return "invalid";
		const expected = Buffer.from(this.sign(time));
		const given = Buffer.from(signature);
		if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
		return now - Number(time) > nonceLifetimeMs ? "stale" : "valid";
	}

	private sign(text: string): string {
		return createHmac("sha256", this.secret).update(text).digest("hex");
	}
}
