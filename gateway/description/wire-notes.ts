import { Field, Shape } from "./shapes";

/** How a value of the shape is written in JSON, where its type alone does not tell. */
export function wireNote(shape: Shape): string | undefined {
	switch (shape.kind) {
		case "guid":
			return "GUID: written as 32 lower-case hex digits; N, D or B form accepted";
		case "timestamp":
			return "Timestamp: written \\/Date(milliseconds+0000)\\/ (UTC); /Date(ms)/ or ISO 8601 accepted";
		case "list":
			return wireNote(shape.item);
		default:
			return undefined;
	}
}

/** A field's description: the schema's own, then the wire note. */
export function fieldNote(field: Field): string | undefined {
	const parts = [
		field.description,
		wireNote(field.shape),
		field.default !== undefined ? `Default ${JSON.stringify(field.default)}` : undefined,
	].filter(Boolean);
	return parts.length ? parts.join(". ") : undefined;
}
