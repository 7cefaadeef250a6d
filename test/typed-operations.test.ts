import path from "node:path";
import ts from "typescript";
import { serviceFactories } from "../plaza";
import { defaultConfig } from "../shared/config";
import {
	catalogue,
	Operation,
	operations,
	postsOperations,
	RequestOf,
	ResponseOf,
	route,
	usersOperations,
} from "../shared/catalogue";
import { actionKeyOf, operationImplementedBy, typedService } from "../shared/implement";
import { w } from "../shared/wire/schema";

/**
 * Typed operations (issue 16): each catalogue entry is implemented by exactly one action, made from
 * the entry itself, and the compiler checks the action against the entry. The `@ts-expect-error`
 * lines below are the compile-time half: "compiles this file" (and `tsc --noEmit`) fail when one of them compiles.
 */

interface Registered {
	wireName: string;
	implements?: Operation;
}

/** Every action of every service Plaza runs, as its factory declares it. */
function registeredActions(): Registered[] {
	const config = defaultConfig();
	return Object.values(serviceFactories)
		.flat()
		.map(factory => factory(config))
		.flatMap(schema =>
			Object.entries(schema.actions ?? {}).map(([key, action]) => ({
				wireName: `${schema.name}.${key}`,
				implements: operationImplementedBy(action),
			})),
		);
}

describe("every catalogue operation", () => {
	const actions = registeredActions();

	it("is implemented by exactly one action, made from its entry, under its wire name", () => {
		const wrong = catalogue.flatMap(op => {
			const implementing = actions.filter(a => a.implements === op).map(a => a.wireName);
			const named = actions.filter(a => a.wireName === op.action).length;
			const expected = [op.action];
			return JSON.stringify(implementing) === JSON.stringify(expected) && named === 1
				? []
				: [`${op.name}: implemented as [${implementing.join(", ")}], ${named} action(s) named ${op.action}`];
		});
		expect(wrong).toEqual([]);
	});

	it("is the only kind of operation an action implements (no action implements an entry left out of the catalogue)", () => {
		const outside = actions.filter(a => a.implements && !catalogue.includes(a.implements));
		expect(outside.map(a => a.wireName)).toEqual([]);
	});
});

describe("implement", () => {
	it("registers the action under the key its entry's wire name gives, and remembers the entry", () => {
		const { implement } = typedService();
		const actions = implement(postsOperations.CreateComment, async ctx => ({ Id: ctx.params.PostId }));
		expect(Object.keys(actions)).toEqual(["comment"]);
		expect(actionKeyOf(postsOperations.CreateComment)).toBe("comment");
		expect(operationImplementedBy(actions.comment)).toBe(postsOperations.CreateComment);
	});
});

/** Compile-time checks: each `@ts-expect-error` must meet an error, or this file does not compile. */
describe("the compiler", () => {
	// Jest runs this file transpiled only (isolatedModules): the checks below are compiled here, as `tsc` would.
	it("compiles this file: every error expected below is one the compiler reports", () => {
		const configFile = path.join(__dirname, "..", "tsconfig.json");
		const { config } = ts.readConfigFile(configFile, file => ts.sys.readFile(file));
		const { options } = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configFile));
		const program = ts.createProgram([__filename], { ...options, noEmit: true });
		const errors = ts.getPreEmitDiagnostics(program, program.getSourceFile(__filename));
		expect(errors.map(e => ts.flattenDiagnosticMessageText(e.messageText, "\n"))).toEqual([]);
	}, 60_000);

	const { implement } = typedService<{ known(): void }>();

	it("types an action's params and answer from its entry", () => {
		const params: RequestOf<typeof postsOperations.CreatePost> = {
			AuthorId: "a",
			Content: "c",
			IsPrivate: false,
			MessageType: 0,
		};
		const answer: ResponseOf<typeof usersOperations.AllUsers> = [{ Id: "a", FirstName: "Ann" }];
		// @ts-expect-error AuthorId is required by CreatePost (w.guid().required())
		const missing: RequestOf<typeof postsOperations.CreatePost> = { Content: "c", IsPrivate: false, MessageType: 0 };
		// @ts-expect-error a user record's FirstName is a string
		const wrong: ResponseOf<typeof usersOperations.AllUsers> = [{ FirstName: 42 }];
		expect([params, answer, missing, wrong]).toHaveLength(4);
	});

	it("refuses a handler whose answer or use of params does not match the entry", () => {
		const checked = [
			// @ts-expect-error a Post's Id is a string, not a number
			implement(postsOperations.FindPost, async () => ({ Id: 42 })),
			// @ts-expect-error AllPostRecipients answers a list of recipients, not one
			implement(postsOperations.AllPostRecipients, async () => ({ Id: "a" })),
			implement(postsOperations.FindPost, async ctx => {
				// @ts-expect-error FindPost has no field PostId (its field is Id)
				return { Id: ctx.params.PostId };
			}),
			implement(postsOperations.CreateTag, async ctx => {
				// @ts-expect-error TagType is a number (its default makes it always there)
				const type: string = ctx.params.TagType;
				return { Value: type };
			}),
			implement(postsOperations.FindPost, async function () {
				// @ts-expect-error `this` is the service: it has the methods declared, no others
				this.unknown(); // eslint-disable-line @typescript-eslint/no-unsafe-call
				return {};
			}),
		];
		expect(checked).toHaveLength(5);
	});

	it("refuses an actor field that is not a field of the request", () => {
		const declared = operations({
			Sample: {
				summary: "A sample",
				action: "samples.create",
				routes: [route("POST /Samples")],
				request: w.object({ OwnerId: w.guid().required() }),
				response: w.object({ Id: w.guid() }),
				access: "user",
				// @ts-expect-error AuthorId is not a field of Sample
				actors: ["AuthorId"],
			},
		});
		expect(declared.Sample.name).toBe("Sample");
	});
});
