/** Drops the nulls a row carries for absent optional fields: records leave them out (PRODUCT.md §1). */
export function present<T extends object>(row: T): T {
	for (const key of Object.keys(row) as Array<keyof T>) if (row[key] === null) delete row[key];
	return row;
}

/** JSON text of a record's free-form fields, and back (null for none). */
export function toJson(fields: Record<string, unknown> | undefined): string | null {
	return fields && Object.keys(fields).length ? JSON.stringify(fields) : null;
}

export function fromJson(text: unknown): Record<string, unknown> {
	return typeof text === "string" && text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
