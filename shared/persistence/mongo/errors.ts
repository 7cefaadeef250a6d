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

/**
 * Runs an upsert, and once more when it met a duplicate key: of two first upserts of one _id at once,
 * both try to insert and one fails on the other's key, and on its second try the document is there.
 */
export async function upsertOnce<T>(upsert: () => Promise<T>): Promise<T> {
	try {
		return await upsert();
	} catch (err) {
		if (!isDuplicateKey(err)) throw err;
		return upsert();
	}
}
