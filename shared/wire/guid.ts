import { randomUUID } from "node:crypto";

/** Server-made GUID in the wire's N form: 32 lower-case hex digits. */
export function newGuid(): string {
	return randomUUID().replace(/-/g, "");
}

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
