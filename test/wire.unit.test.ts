import { newGuid, newOrderedGuid, parseGuid } from "../shared/wire/guid";
import { escapeWireDates, parseWireDate, toWireDate } from "../shared/wire/dates";
import { binderFor } from "../shared/wire/bind";
import { w } from "../shared/wire/schema";

describe("GUIDs", () => {
	test("are made in the N form", () => {
		expect(newGuid()).toMatch(/^[0-9a-f]{32}$/);
		expect(newGuid()).not.toBe(newGuid());
	});

	test("made for posts, tags and comments are version 7 UUIDs that sort by their time", () => {
		const at = Date.UTC(2026, 10, 24, 12, 0, 0, 5);
		const ids = [newOrderedGuid(at), newOrderedGuid(at + 1), newOrderedGuid(at + 1000)];
		for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
		expect(ids[0].slice(0, 12)).toBe(at.toString(16).padStart(12, "0"));
		expect([...ids].sort()).toEqual(ids);
		expect(newOrderedGuid(at)).not.toBe(newOrderedGuid(at));
		expect(parseGuid(ids[0])).toBe(ids[0]);
	});

	test("made in the same millisecond sort in the order they were made (a post and the one after it, side by side in a list)", () => {
		const at = Date.UTC(2026, 10, 24, 12, 0, 0, 7);
		for (let run = 0; run < 20; run++) {
			const ids = Array.from({ length: 2048 }, () => newOrderedGuid(at + run));
			expect(new Set(ids.map(id => id.slice(0, 12)))).toEqual(new Set([(at + run).toString(16).padStart(12, "0")]));
			expect([...ids].sort()).toEqual(ids);
		}
	});

	test.each([
		["0f8fad5bd9cb469fa16570867728950e", "0f8fad5bd9cb469fa16570867728950e"],
		["0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5bd9cb469fa16570867728950e"],
		["{0f8fad5b-d9cb-469f-a165-70867728950e}", "0f8fad5bd9cb469fa16570867728950e"],
	])("%s reads as %s", (text, guid) => expect(parseGuid(text)).toBe(guid));

	test.each([
		"",
		"0f8fad5b",
		"0f8fad5bd9cb469fa16570867728950g",
		"0f8fad5b-d9cb469f-a165-70867728950e",
		"{0f8fad5bd9cb469fa16570867728950e}",
	])("%p is not a GUID", text => expect(parseGuid(text)).toBeUndefined());
});

describe("timestamps", () => {
	test("are written as /Date(ms+0000)/", () => expect(toWireDate(1732269600000)).toBe("/Date(1732269600000+0000)/"));

	test.each([
		["/Date(1732269600000)/", 1732269600000],
		["/Date(1732269600000-0500)/", 1732269600000],
		["/Date(-86400000)/", -86400000],
		["2024-11-22", Date.UTC(2024, 10, 22)],
		["2024-11-22T10:00Z", 1732269600000],
		["2024-11-22 10:00:00", 1732269600000],
		["2024-11-22T12:00:00+0200", 1732269600000],
	])("%s reads as %i", (text, ms) => expect(parseWireDate(text)).toBe(ms));

	test.each(["tomorrow", "22/11/2024", "2024-13-45T99:00:00Z", "/Date(abc)/", "1732269600000"])(
		"%p is not a timestamp",
		text => expect(parseWireDate(text)).toBeUndefined(),
	);

	test("only /Date()/ strings get the escaped slashes, and the JSON still decodes to the same value", () => {
		const value = { CreatedTime: "/Date(1+0000)/", Url: "https://x.org/a", AboutMe: 'say "/Date(2)/"' };
		const json = escapeWireDates(JSON.stringify(value));
		expect(json).toBe('{"CreatedTime":"\\/Date(1+0000)\\/","Url":"https://x.org/a","AboutMe":"say \\"/Date(2)/\\""}');
		expect(JSON.parse(json)).toEqual(value);
	});

	test("a date-like text before a real timestamp leaves the timestamp escaped and every value intact", () => {
		const value = {
			AboutMe: 'say "/Date(2)/" or /Date(x)/',
			CreatedTime: "/Date(-5+0100)/",
			Times: ["/Date(7)/", "/Date(8+00)/"],
		};
		const json = escapeWireDates(JSON.stringify(value));
		expect(json).toBe(
			'{"AboutMe":"say \\"/Date(2)/\\" or /Date(x)/","CreatedTime":"\\/Date(-5+0100)\\/","Times":["\\/Date(7)\\/","/Date(8+00)/"]}',
		);
		expect(JSON.parse(json)).toEqual(value);
	});
});

describe("binding", () => {
	const bind = binderFor(w.object({ FirstName: w.string(), Limit: w.number() }));

	test("folds the case of field names, prefers an exact match, and drops unknown fields and nulls", () => {
		expect(bind({ firstname: "a", LIMIT: 3, other: 1 })).toEqual({ FirstName: "a", Limit: 3 });
		expect(bind({ firstName: "folded", FirstName: "exact" })).toEqual({ FirstName: "exact" });
		expect(bind({ FirstName: null })).toEqual({});
	});

	test("a list field takes a query-string value 'a,b' or '[a,b]'", () => {
		const schema = w.object({ Tags: w.list(w.string()) });
		expect(schema.validate({ Tags: "a, b" }).value).toEqual({ Tags: ["a", "b"] });
		expect(schema.validate({ Tags: "[a,b]" }).value).toEqual({ Tags: ["a", "b"] });
		expect(schema.validate({ Tags: "" }).value).toEqual({ Tags: [] });
	});
});
