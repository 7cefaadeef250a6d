import Joi from "joi";

/**
 * Types only: the TypeScript value a wire schema yields once validated, carried beside the joi
 * schema it describes. Joi 18's own typings cannot carry it (`object()` does not infer its keys'
 * types, `required()` and `default()` return the same type), so the builders of `w` return joi
 * schemas with this phantom mark: at run time they are plain joi schemas, nothing is added.
 */
declare const yields: unique symbol;

/** A schema's type mark: what it yields, and whether a value is always there (required, or defaulted). */
export interface Yields<T, Present extends boolean> {
	readonly [yields]?: { type: T; present: Present };
}

/**
 * Presence and allowed values change the mark; declared ahead of joi's own `(): this`, so that these
 * overloads are the ones chosen. `valid(...)` yields the allowed value matched (even `insensitive()`).
 */
interface Marking<S, T, Present extends boolean> {
	required(): Typed<S, T, true>;
	optional(): Typed<S, T, false>;
	default(value: T | (() => T)): Typed<S, T, true>;
	valid<const V extends T>(...values: V[]): Typed<S, V, Present>;
}

/** A joi schema S yielding T; `Present` when the value is never missing after validation. */
export type Typed<S, T, Present extends boolean = false> = Marking<S, T, Present> & Yields<T, Present> & S;

/** What a schema yields (`unknown` for an unmarked joi schema). */
export type Infer<S> = S extends Yields<infer T, boolean> ? T : unknown;

type Fields = Record<string, Joi.Schema>;
type PresentKeys<F> = { [K in keyof F]: F[K] extends Yields<unknown, true> ? K : never }[keyof F];
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** An object of these fields: required and defaulted ones always there, the others optional. */
export type ObjectOf<F extends Fields> = Flat<
	{ [K in PresentKeys<F>]: Infer<F[K]> } & { [K in Exclude<keyof F, PresentKeys<F>>]?: Infer<F[K]> }
>;

/** `object(fields)`, or without fields a dictionary made by `pattern(key, value)`. */
export type TypedObject<T> = {
	pattern<V extends Joi.Schema>(key: Joi.Schema, value: V): Typed<Joi.ObjectSchema, Record<string, Infer<V>>>;
} & Typed<Joi.ObjectSchema, T>;

/** `array()` yields what its `items(schema)` yield. */
export type TypedArray = { items<I extends Joi.Schema>(item: I): Typed<Joi.ArraySchema, Array<Infer<I>>> } & Typed<
	Joi.ArraySchema,
	unknown[]
>;

/** The builders of `w` whose schemas carry their types (the rest of Joi's root is as Joi types it). */
export interface TypedBuilders {
	string(): Typed<Joi.StringSchema, string>;
	guid(): Typed<Joi.StringSchema, string>;
	number(): Typed<Joi.NumberSchema, number>;
	timestamp(): Typed<Joi.NumberSchema, number>;
	boolean(): Typed<Joi.BooleanSchema, boolean>;
	object(): TypedObject<Record<string, unknown>>;
	object<F extends Fields>(fields: F): TypedObject<ObjectOf<F>>;
	array(): TypedArray;
	list<I extends Joi.Schema>(item: I): Typed<Joi.ArraySchema, Array<Infer<I>>>;
}
