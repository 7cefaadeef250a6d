import { randomUUID } from "node:crypto";

/** Server-made GUID in the wire's N form: 32 lower-case hex digits. */
export function newGuid(): string {
	return randomUUID().replace(/-/g, "");
}

/**
 * A GUID for records written at a high rate: a version 7 UUID (N form) of 48 bits of ms time, a 12-bit count of this
 * process's GUIDs in that ms (RFC 9562, 6.2, method 1) and 62 random bits. Inserts append to indexes keyed by id
 * instead of dirtying a random page, and records of one ms sort by id in the order made, as lists ordered by
 * (CreatedTime, Id) show them.
 */
export function newOrderedGuid(now = Date.now()): string {
	if (now !== sequence.ms || sequence.next > 0xfff) {
		// A new millisecond starts its count at a random point of the lower half: 2,048 at least fit after it.
		sequence.ms = now;
		sequence.next = Math.floor(Math.random() * 0x800);
	}
	const counter = sequence.next++;
	// The rest from a random (version 4) UUID, its variant bits included: randomUUID draws from a pool, where
	// randomBytes asks the system each time.
	return (
		now.toString(16).padStart(12, "0").slice(-12) + "7" + counter.toString(16).padStart(3, "0") + newGuid().slice(16)
	);
}

/** The millisecond of the last ordered GUID and the count its next one takes. */
const sequence = { ms: -1, next: 0 };

const forms = [
	/^[0-9a-f]{32}$/i, // N
	/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // D
	/^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$/i, // B
];

/** The N form of a GUID written in the N, D or B form (any case); undefined when it is none of them. */
export function parseGuid(text: string): string | undefined {
	const s = text.trim();
	return forms.some(form => form.test(s)) ? s.replace(/[-{}]/g, "").toLowerCase() : undefined;
}
