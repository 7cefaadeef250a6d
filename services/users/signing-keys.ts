import { createHmac, randomBytes } from "node:crypto";
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, JSONWebKeySet, JWK } from "jose";
import { open, seal } from "../../shared/idempotency/sealing";
import { SigningKey, tokenAlgorithm } from "../../shared/tokens/bearer-tokens";
import { SigningKeyRow } from "./tokens.rows";

/** What the keys need of the store (TokensRepository and its MongoDB twin). */
export interface SigningKeyStore {
	signingKeys(): Promise<SigningKeyRow[]>;
	addSigningKey(row: SigningKeyRow): Promise<void>;
	removeSigningKeysBefore(time: number): Promise<number>;
}

/** How long this node reads the keys from its memory before it looks at the store again (another node rotated). */
const rereadMs = 60_000;

/**
 * The keys that sign bearer tokens, shared by every users node through the store: the newest signs, and every key
 * younger than two rotations is published, so that a token signed just before a rotation still verifies. A node that
 * finds the newest key a rotation old makes the next one; private halves are kept sealed with the server's secret.
 */
export class SigningKeys {
	private readonly sealKey: Buffer;

	private read?: { at: number; rows: SigningKeyRow[] };

	private signer?: { kid: string; key: SigningKey };

	constructor(
		private readonly store: SigningKeyStore,
		serverSecret: Buffer,
		private readonly rotationMs: number,
	) {
		this.sealKey = createHmac("sha256", serverSecret).update("plaza signing keys").digest();
	}

	/** The key to sign with now, made when there is none younger than a rotation. */
	async current(): Promise<SigningKey> {
		let [newest] = await this.rows();
		if (!newest || newest.CreatedTime <= Date.now() - this.rotationMs) {
			await this.store.addSigningKey(await this.make());
			await this.store.removeSigningKeysBefore(Date.now() - 3 * this.rotationMs);
			[newest] = await this.rows(true);
		}
		if (this.signer?.kid !== newest.Kid) {
			const pem = open(this.sealKey, newest.SealedPrivateKey) as string;
			this.signer = { kid: newest.Kid, key: { kid: newest.Kid, privateKey: await importPKCS8(pem, tokenAlgorithm) } };
		}
		return this.signer.key;
	}

	/**
	 * The published key set: every key younger than two rotations, read from the store (another node may have just made
	 * the key its tokens name).
	 */
	async published(): Promise<JSONWebKeySet> {
		const since = Date.now() - 2 * this.rotationMs;
		const rows = (await this.rows(true)).filter(row => row.CreatedTime > since);
		return { keys: rows.map(row => JSON.parse(row.PublicJwk) as JWK) };
	}

	private async rows(fresh = false): Promise<SigningKeyRow[]> {
		if (fresh || !this.read || this.read.at < Date.now() - rereadMs)
			this.read = { at: Date.now(), rows: await this.store.signingKeys() };
		return this.read.rows;
	}

	private async make(): Promise<SigningKeyRow> {
		const { publicKey, privateKey } = await generateKeyPair(tokenAlgorithm, { modulusLength: 2048, extractable: true });
		const kid = randomBytes(9).toString("base64url");
		const jwk = { ...(await exportJWK(publicKey)), kid, alg: tokenAlgorithm, use: "sig" };
		return {
			Kid: kid,
			SealedPrivateKey: seal(this.sealKey, await exportPKCS8(privateKey)),
			PublicJwk: JSON.stringify(jwk),
			CreatedTime: Date.now(),
		};
	}
}
