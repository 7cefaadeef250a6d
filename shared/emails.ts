/**
 * An e-mail address is written only to the person it belongs to and to admins (PRODUCT.md §3):
 * everyone else gets the record without it.
 */
export function withoutEmail<T extends { Email?: unknown }>(record: T): Omit<T, "Email"> {
	if (record.Email === undefined) return record;
	const { Email: _hidden, ...others } = record;
	return others;
}
