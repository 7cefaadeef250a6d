import { Collection, Document, Filter } from "mongodb";
import { failures } from "../../errors";
import { Anchor, Page } from "../sql/paging";

/**
 * Where a list's cursor and order are: the field AfterId names, and the field that breaks ties of time (both `_id`
 * unless told).
 */
export interface CursorFields {
	cursor?: string;
	tiebreak?: string;
}

/**
 * The anchor of `page.AfterId` (see sql/paging.ts): the (time, tiebreak) of the document it names
 * among those `within` selects, or undefined without a cursor; a cursor that names none is a 400 on AfterId.
 */
export async function mongoAnchorOf<T extends Document>(
	collection: Collection<T>,
	page: Page,
	timeField: string,
	within: Filter<T> = {},
	fields: CursorFields = {},
): Promise<Anchor | undefined> {
	if (!page.AfterId) return undefined;
	const { cursor = "_id", tiebreak = "_id" } = fields;
	const found = await collection.findOne({ ...within, [cursor]: page.AfterId } as Filter<T>, {
		projection: { [timeField]: 1, [tiebreak]: 1 },
	});
	if (!found) throw failures.field("AfterId", "InvalidValue", "AfterId names no record of this list");
	return { time: Number(found[timeField]), id: String(found[tiebreak]) };
}

/** "After the anchor" in the order (time, tiebreak), oldest first or, with `newestFirst`, newest first. */
export function afterAnchorFilter(timeField: string, anchor: Anchor, newestFirst = false, tiebreak = "_id"): Document {
	const beyond = newestFirst ? "$lt" : "$gt";
	return {
		$or: [
			{ [timeField]: { [beyond]: anchor.time } },
			{ [timeField]: anchor.time, [tiebreak]: { [beyond]: anchor.id } },
		],
	};
}

/** Documents of a list in (time, tiebreak) order from a cursor on: `filter` and the anchor together. */
export function withAnchor(
	filter: Document,
	timeField: string,
	anchor: Anchor | undefined,
	newestFirst = false,
	tiebreak = "_id",
): Document {
	return anchor ? { $and: [filter, afterAnchorFilter(timeField, anchor, newestFirst, tiebreak)] } : filter;
}

/**
 * The order of a list: a time field, then the field AfterId names and the one that breaks ties (both `_id` unless
 * told).
 */
export interface ListOrder extends CursorFields {
	time: string;
	/** Where the cursor's record is looked for, when not among the documents `filter` selects. */
	anchorWithin?: Document;
}

/**
 * A page of the documents `filter` selects, oldest first by (time, tiebreak): Offset and Limit in the
 * query and, with AfterId, a seek past the document it names (a 400 when it names none). Every
 * "a user's devices", "a post's comments"… list on MongoDB is this query.
 */
export async function pageOfList<T extends Document>(
	collection: Collection<T>,
	page: Page,
	filter: Document,
	order: ListOrder,
	projection?: Document,
): Promise<T[]> {
	if (page.Limit === 0) return [];
	const { time, cursor = "_id", tiebreak = "_id", anchorWithin = filter } = order;
	const anchor = await mongoAnchorOf(collection, page, time, anchorWithin as Filter<T>, { cursor, tiebreak });
	const found = collection.find(
		withAnchor(filter, time, anchor, false, tiebreak) as Filter<T>,
		projection ? { projection } : {},
	);
	return (await found
		.sort({ [time]: 1, [tiebreak]: 1 })
		.skip(page.Offset)
		.limit(page.Limit)
		.toArray()) as T[];
}

/**
 * The record a list's document stands for, found by `localField` in the collection `from` (a membership's network,
 * say).
 */
export interface JoinedTo {
	from: string;
	localField: string;
}

/**
 * A page of the records that the documents `filter` selects stand for, in the documents' (time,
 * tiebreak) order: each document joined to its record, one whose record is missing passed over before
 * the page is cut (as SQL's inner join does), and with AfterId a seek past the document it names.
 */
export async function pageOfJoined<T extends Document, R extends Document>(
	collection: Collection<T>,
	page: Page,
	filter: Filter<T>,
	order: ListOrder,
	joined: JoinedTo,
): Promise<R[]> {
	if (page.Limit === 0) return [];
	const { time, cursor = "_id", tiebreak = "_id" } = order;
	const anchor = await mongoAnchorOf(collection, page, time, filter, { cursor, tiebreak });
	return collection
		.aggregate<R>([
			{ $match: withAnchor(filter, time, anchor, false, tiebreak) },
			{ $sort: { [time]: 1, [tiebreak]: 1 } },
			{ $lookup: { from: joined.from, localField: joined.localField, foreignField: "_id", as: "joined" } },
			{ $unwind: "$joined" },
			{ $skip: page.Offset },
			{ $limit: page.Limit },
			{ $replaceRoot: { newRoot: "$joined" } },
		])
		.toArray();
}

/**
 * A list of one collection's documents that belong to one owner, oldest first by (created_time, _id)
 * (what sql/paging.ts's OwnedList is on MongoDB); an index on (owner, created_time, _id) serves it.
 */
export interface OwnedList {
	/** The field that names the owner. */
	owner: string;
	/** The field AfterId names, unique among an owner's documents. */
	cursor: string;
	/** The fields a record is made of. */
	projection: Document;
}

const ownedOrder = { created_time: 1, _id: 1 } as const;

/**
 * A page of an owner's list: sort, skip and limit in the query, and with a cursor a seek past the document it names.
 */
export function ownedPage<T extends Document>(
	collection: Collection<T>,
	list: OwnedList,
	ownerId: string,
	page: Page,
): Promise<T[]> {
	return pageOfList(
		collection,
		page,
		{ [list.owner]: ownerId },
		{ time: "created_time", cursor: list.cursor },
		list.projection,
	);
}

/**
 * The first `limit` documents of each of these owners' lists, grouped by owner (owners in id order,
 * as the SQL sorts them): one query per owner, each cut by its limit, so that a busy owner costs its
 * limit and no more.
 */
export async function firstOwned<T extends Document>(
	collection: Collection<T>,
	list: OwnedList,
	ownerIds: string[],
	limit: number,
): Promise<T[]> {
	if (ownerIds.length === 0 || limit === 0) return [];
	const owners = [...new Set(ownerIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
	const lists = await Promise.all(
		owners.map(owner =>
			collection
				.find({ [list.owner]: owner } as Filter<T>, { projection: list.projection })
				.sort(ownedOrder)
				.limit(limit)
				.toArray(),
		),
	);
	return lists.flat() as T[];
}
