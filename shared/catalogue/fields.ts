import { w } from "../wire/schema";

/** Field shapes several operations share. */

/**
 * Offset/Limit of every paged operation (SPEC.md §8, PRODUCT.md §1), and AfterId, the keyset cursor:
 * the Id of the last record of the previous page (for lists of members, the member's UserId), which
 * reads the next page at the cost of one page however deep it is.
 */
export const paging = {
	Offset: w.number().integer().min(0).default(0),
	Limit: w.number().integer().min(0).max(1000).default(50),
	AfterId: w.guid(),
};

/** An optional text field; an empty string clears it on update. */
export const text = (max = 200) => w.string().trim().max(max).allow("");

/** A required text field. */
export const requiredText = (max = 200) => w.string().trim().max(max).required();

/**
 * A user name: letters, digits and . _ + -; never "@", so that it cannot be (or take over) an e-mail address
 * (PRODUCT.md §3).
 */
export const userName = () =>
	w
		.string()
		.trim()
		.max(100)
		.pattern(/^[\w.+-]+$/, "user name without @");

/** A new password: 8 characters or more. */
export const newPassword = () => w.string().min(8).max(200);

/** A list of short strings, also accepted as "a,b" in a query string. */
export const textList = () => w.list(w.string().trim().max(200)).max(100);
