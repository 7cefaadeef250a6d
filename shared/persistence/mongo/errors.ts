/** Whether an error is a duplicate key on a unique index (E11000), from a write or a bulk write. */
export function isDuplicateKey(err: unknown): boolean {
	return (err as { code?: unknown } | undefined)?.code === 11000;
}

/**
 * The name of the unique index a duplicate key broke. Servers name it in the message
 * ("… index: email_key dup key: …"); recent ones also give its key pattern.
 */
export function duplicateIndexOf(err: unknown): string {
	const { message, keyPattern } = (err ?? {}) as { message?: string; keyPattern?: Record<string, unknown> };
	const named = / index: (\S+)/.exec(message ?? "")?.[1];
	return named ?? Object.keys(keyPattern ?? {}).join(",");
}
