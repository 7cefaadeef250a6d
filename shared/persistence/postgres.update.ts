import { Update } from "./store";
import { fieldPath, isPlainObject, Params } from "./postgres.sql";

/**
 * The new `doc` of an UPDATE as one jsonb expression over the row, so the database applies every
 * update atomically: twenty concurrent `$inc`s of one field add twenty. Old values are read from
 * `doc` itself, as an update may not name one field under two operators (MongoDB refuses it too).
 */
export function updateExpr(update: Update, p: Params): string {
	let e = "doc";
	for (const [op, fields] of Object.entries(update)) {
		const entries = Object.entries(fields ?? {}).filter(([field]) => checked(field));
		if (!entries.length) continue;
		switch (op) {
			case "$set":
				e = `(${e} || ${p.json(Object.fromEntries(entries))})`;
				break;
			case "$unset":
				e = `(${e} - ${p.add(entries.map(([field]) => field), "text[]")})`;
				break;
			case "$inc":
			case "$push":
			case "$addToSet":
			case "$pull":
				for (const [field, value] of entries) e = fieldUpdate(op, e, p.add(field, "text"), value, p);
				break;
			default:
				throw new Error(`The update operator ${op} is not part of the store contract (shared/persistence/store.ts)`);
		}
	}
	return e;
}

function fieldUpdate(op: "$inc" | "$push" | "$addToSet" | "$pull", e: string, key: string, value: unknown, p: Params): string {
	const old = `(doc->${key})`;
	const list = `COALESCE(${old}, '[]'::jsonb)`;
	switch (op) {
		case "$inc":
			if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`$inc takes a number, got ${JSON.stringify(value)}`);
			return `(${e} || jsonb_build_object(${key}, to_jsonb(COALESCE(${old}::numeric, 0) + ${p.add(value, "numeric")})))`;
		case "$push":
			return `(${e} || jsonb_build_object(${key}, ${list} || ${p.json(eachOf(value))}))`;
		case "$addToSet": {
			const items = [...new Map(eachOf(value).map(item => [JSON.stringify(item), item])).values()];
			const added = `SELECT jsonb_agg(x.v ORDER BY x.i) FROM jsonb_array_elements(${p.json(items)}) WITH ORDINALITY AS x(v, i) WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${list}) AS had(v) WHERE had.v = x.v)`;
			return `(${e} || jsonb_build_object(${key}, ${list} || COALESCE((${added}), '[]'::jsonb)))`;
		}
		case "$pull": {
			const removed = isPlainObject(value) && Array.isArray(value.$in) ? value.$in : [value];
			const kept = `SELECT jsonb_agg(x.v ORDER BY x.i) FROM jsonb_array_elements(${old}) WITH ORDINALITY AS x(v, i) WHERE x.v <> ALL(${p.add(removed.map(v => JSON.stringify(v)), "jsonb[]")})`;
			// create_missing false: pulling from a field that is not there leaves it not there.
			return `jsonb_set(${e}, ARRAY[${key}], COALESCE((${kept}), '[]'::jsonb), false)`;
		}
	}
}

/** `$push`/`$addToSet` take one item or `{ $each: [items] }`. */
function eachOf(value: unknown): unknown[] {
	return isPlainObject(value) && Array.isArray(value.$each) ? value.$each : [value];
}

function checked(field: string): true {
	if (field === "_id") throw new Error("The id of a document does not change");
	if (fieldPath(field).length > 1) throw new Error(`Updates change top-level fields; "${field}" is nested`);
	return true;
}
