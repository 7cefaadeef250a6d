// Lint for Plaza's TypeScript: typescript-eslint's type-checked rules, for the bugs they catch
// (promises nobody awaits, unused code, `any` leaking through). Formatting is prettier's job.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
	{ ignores: ["dist/", "node_modules/", "coverage/", "data/", "**/*.js", "**/*.mjs"] },
	js.configs.recommended,
	tseslint.configs.recommendedTypeChecked,
	{
		files: ["**/*.ts"],
		languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
		rules: {
			// `void p` alone is not enough: a promise left to run must end in a .catch, else a rejection ends the process.
			"@typescript-eslint/no-floating-promises": ["error", { ignoreVoid: false }],
			"@typescript-eslint/no-misused-promises": "error",
			"@typescript-eslint/await-thenable": "error",
			"@typescript-eslint/no-unused-vars": [
				"error",
				{
					args: "after-used",
					argsIgnorePattern: "^_",
					varsIgnorePattern: "^_",
					caughtErrorsIgnorePattern: "^_",
					ignoreRestSiblings: true,
				},
			],
			"@typescript-eslint/no-explicit-any": "error",
			"@typescript-eslint/no-unsafe-assignment": "error",
			"@typescript-eslint/no-unsafe-member-access": "error",
			"@typescript-eslint/no-unsafe-call": "error",
			"@typescript-eslint/no-unsafe-return": "error",
			"@typescript-eslint/no-unsafe-argument": "error",
			// A `let` that a callback reads before its one assignment (a signal handler set before start-up ends) must stay a
			// `let`.
			"prefer-const": ["error", { ignoreReadBeforeAssign: true }],
			// Passing on an error a callback or a catch received, unchanged, is what these promise wrappers are for.
			"@typescript-eslint/prefer-promise-reject-errors": [
				"error",
				{ allowThrowingAny: true, allowThrowingUnknown: true },
			],
			// Style, not bugs: an async function without await still turns a throw into a rejection, which interfaces here
			// expect.
			"@typescript-eslint/require-await": "off",
		},
	},
	{
		// A write states what it changed with `changed` (shared/changes/changes.ts); the means it drives are not theirs.
		files: ["services/**/*.ts", "gateway/**/*.ts"],
		rules: {
			"no-restricted-imports": [
				"error",
				{
					paths: [
						...["../../shared/cache/invalidation", "../shared/cache/invalidation"].map(name => ({
							name,
							importNames: ["invalidate"],
							message: "Declare the change: shared/changes/changes.ts",
						})),
						{
							name: "../../shared/streams/stream-event",
							importNames: ["announce"],
							message: "Declare the change: shared/changes/changes.ts",
						},
					],
				},
			],
		},
	},
	{
		files: ["test/**/*.ts"],
		rules: {
			// Jest's asymmetric matchers (expect.any, objectContaining…) are typed `any` by design, to sit inside expected
			// values.
			"@typescript-eslint/no-unsafe-assignment": "off",
		},
	},
);
