import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { SeenNonces } from "./seen-nonces";

/**
 * The seal of one bus packet: AES-256-GCM under a key derived (HKDF-SHA256) from CLUSTER_SECRET and a random salt
 * renewed every 2^24 packets, its IV counting the packets sealed under it (NIST SP 800-38D's deterministic
 * construction: never repeated under a key), authenticating the time sent, the type and the addressee: a packet opens
 * once, within the window, at its node. Layout: version (1) | addressed (1) | key salt (16) | sent at, ms (8) | IV
 * (12) | tag (16) | ciphertext.
 */
const version = 1;
const saltBytes = 16;
const ivBytes = 12;
const tagBytes = 16;
const headerBytes = 1 + 1 + saltBytes + 8;
const sealBytes = headerBytes + ivBytes + tagBytes;
const packetsPerKey = 2 ** 24;
const keyInfo = "plaza bus seal v1";

export interface SealOptions {
	/** How old a packet may be when it arrives. */
	windowMs: number;
	/** How far ahead of this node's clock a sender's may run. */
	skewMs: number;
	/**
	 * IVs remembered per generation (two generations span the window): past it, packets are refused, not replays let in.
	 */
	maxRemembered: number;
	/** The clock (tests move it). */
	now: () => number;
}

export const defaultSealOptions: SealOptions = {
	windowMs: 30_000,
	skewMs: 5_000,
	maxRemembered: 500_000,
	now: Date.now,
};

/** Why a packet was dropped, for the warning that says so. */
export type DropReason = "malformed" | "unauthentic" | "stale" | "replayed" | "overloaded";

export type Opened = { ok: true; data: Buffer } | { ok: false; reason: DropReason };

export interface PacketSeal {
	/** Seals a serialized packet of this type, addressed to `target` (a node ID) or to whoever listens (undefined). */
	seal(type: string, target: string | undefined, data: Buffer): Buffer;
	/** Opens a sealed packet of this type that reached node `self`: the serialized packet, or why it is dropped. */
	open(type: string, self: string, sealed: Buffer): Opened;
}

export function packetSeal(secret: string, overrides: Partial<SealOptions> = {}): PacketSeal {
	const options = { ...defaultSealOptions, ...overrides };
	const keys = new DerivedKeys(secret);
	const seen = new SeenNonces(options.windowMs + options.skewMs, options.maxRemembered, options.now);
	let salt = randomBytes(saltBytes);
	let key = keys.of(salt);
	let sealedWithKey = 0;

	return {
		seal(type, target, data) {
			if (++sealedWithKey > packetsPerKey) {
				salt = randomBytes(saltBytes);
				key = keys.of(salt);
				sealedWithKey = 1;
			}
			const header = Buffer.allocUnsafe(headerBytes);
			header[0] = version;
			header[1] = target ? 1 : 0;
			salt.copy(header, 2);
			header.writeBigUInt64BE(BigInt(options.now()), 2 + saltBytes);
			const iv = Buffer.alloc(ivBytes);
			iv.writeBigUInt64BE(BigInt(sealedWithKey), ivBytes - 8);
			const cipher = createCipheriv("aes-256-gcm", key, iv);
			cipher.setAAD(associatedData(header, type, target));
			const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
			return Buffer.concat([header, iv, cipher.getAuthTag(), ciphertext]);
		},

		open(type, self, sealed) {
			if (sealed.length < sealBytes || sealed[0] !== version || sealed[1] > 1)
				return { ok: false, reason: "malformed" };
			const header = sealed.subarray(0, headerBytes);
			const iv = sealed.subarray(headerBytes, headerBytes + ivBytes);
			const tag = sealed.subarray(headerBytes + ivBytes, sealBytes);
			const packetSalt = sealed.subarray(2, 2 + saltBytes);
			const packetKey = keys.of(packetSalt);
			let data: Buffer;
			try {
				const decipher = createDecipheriv("aes-256-gcm", packetKey, iv, { authTagLength: tagBytes });
				decipher.setAAD(associatedData(header, type, sealed[1] === 1 ? self : undefined));
				decipher.setAuthTag(tag);
				data = Buffer.concat([decipher.update(sealed.subarray(sealBytes)), decipher.final()]);
			} catch {
				return { ok: false, reason: "unauthentic" };
			}
			keys.remember(packetSalt, packetKey);
			// Checked once authentic: a forger cannot fill the replay memory, nor learn the window.
			const sentAt = Number(header.readBigUInt64BE(2 + saltBytes));
			const now = options.now();
			if (sentAt < now - options.windowMs || sentAt > now + options.skewMs) return { ok: false, reason: "stale" };
			const remembered = seen.add(sealed.toString("latin1", 2, 2 + saltBytes) + iv.toString("latin1"));
			if (remembered !== "new") return { ok: false, reason: remembered };
			return { ok: true, data };
		},
	};
}

/** What the tag covers besides the ciphertext: the header (time, salt) and where the packet may be opened. */
function associatedData(header: Buffer, type: string, target: string | undefined): Buffer {
	return Buffer.concat([header, Buffer.from(`\0${type}\0${target ?? ""}`, "utf8")]);
}

/** Keys by salt: one HKDF per sender key, not per packet; bounded, and filled only by packets that authenticate. */
class DerivedKeys {
	private readonly cache = new Map<string, Buffer>();
	private static readonly max = 1024;

	constructor(private readonly secret: string) {}

	of(salt: Buffer): Buffer {
		return this.cache.get(salt.toString("latin1")) ?? Buffer.from(hkdfSync("sha256", this.secret, salt, keyInfo, 32));
	}

	remember(salt: Buffer, key: Buffer): void {
		const id = salt.toString("latin1");
		if (this.cache.has(id)) return;
		if (this.cache.size >= DerivedKeys.max) this.cache.delete(this.cache.keys().next().value as string);
		this.cache.set(id, key);
	}
}
