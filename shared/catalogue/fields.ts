import { w } from "../wire/schema";

/** Field shapes several operations share. */

/** Offset/Limit of every paged operation (SPEC.md §8, PRODUCT.md §1). */
export const paging = {
	Offset: w.number().integer().min(0).default(0),
	Limit: w.number().integer().min(0).max(1000).default(50),
};

/** An optional text field; an empty string clears it on update. */
export const text = (max = 200) => w.string().trim().max(max).allow("");

/** A required text field. */
export const requiredText = (max = 200) => w.string().trim().max(max).required();

/** A list of short strings, also accepted as "a,b" in a query string. */
export const textList = () => w.list(w.string().trim().max(200)).max(100);
