import { inspect } from "node:util";
import { Loggers, LogLevels } from "moleculer";

type LogHandler = (level: LogLevels, args: unknown[]) => void;
type Bindings = Parameters<InstanceType<typeof Loggers.Console>["getLogHandler"]>[0];

/** Moleculer's own start-up chatter: useful when debugging start-up, noise at every `npm start`. */
const startUpChatter = [
	/^Moleculer v\S+ is starting/,
	/^(Namespace|Node ID|Serializer|Validator|Strategy|Discoverer|Transporter|Cacher|Metric reporter|Tracing exporter)s?:/,
	/^(Metrics|Tracing): /,
	/^Registered \d+ middleware/,
	/^'.+' service is registered\.$/,
	/^Service '.+' started\.$/,
	/^Waiting for service\(s\)/,
	/^Service\(s\) .+ are available\.$/,
	/^✔ ServiceBroker with \d+ service\(s\) started/,
];

const isChatter = (args: unknown[]) =>
	typeof args[0] === "string" && startUpChatter.some(pattern => pattern.test(args[0] as string));

/** A line's fields come first, as `logger.info({ requestID, path }, "message")`; an Error is not a field record. */
const isFields = (value: unknown): value is Record<string, unknown> =>
	value !== null &&
	typeof value === "object" &&
	(Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** An Error among the fields keeps its name, message and stack in JSON (JSON.stringify would give `{}`). */
const jsonFields = (fields: Record<string, unknown>) =>
	Object.fromEntries(
		Object.entries(fields).map(([key, value]) => [
			key,
			value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value,
		]),
	);

const shortValue = (value: unknown) =>
	typeof value === "string" && /^[^\s"=]+$/.test(value)
		? value
		: typeof value === "object"
			? JSON.stringify(value)
			: // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects go to JSON; String() is for the scalars left
				String(value);

/**
 * A short line reads `message key=value …`: the fields the message does not already show, an Error
 * field as its stack on the lines below, and `event` (a name for machines) left to JSON.
 */
function shortArgs(args: unknown[]): unknown[] {
	const [fields, message = "", ...rest] = args;
	if (!isFields(fields)) return args;
	const shown = new Set(
		String(message)
			.split(/\s+/)
			.map(word => word.replace(/[,;:.]$/, "")),
	);
	const errors: Error[] = [];
	const pairs: string[] = [];
	for (const [key, value] of Object.entries(fields)) {
		if (value === undefined || key === "event") continue;
		if (value instanceof Error) errors.push(value);
		else if (!shown.has(shortValue(value))) pairs.push(`${key}=${shortValue(value)}`);
	}
	const line = [message, ...rest, ...pairs];
	return errors.length ? [...line, ...errors.map(err => `\n${inspect(err)}`)] : line;
}

/**
 * Plaza's console logger: Moleculer's, with its start-up chatter at debug, and fields first in every
 * format (JSON keys with LOG_FORMAT=json, `key=value` in the short lines).
 */
export class PlazaConsoleLogger extends Loggers.Console {
	constructor(
		options: ConstructorParameters<typeof Loggers.Console>[0],
		private readonly format: "json" | "short",
	) {
		super(options);
	}

	override getLogHandler(bindings: Bindings): LogHandler | null {
		const handler = super.getLogHandler(bindings);
		if (!handler) return null;
		const shown = Loggers.Console.LEVELS.indexOf(this.getLogLevel(bindings.mod) ?? "info");
		return (level, args) => {
			const as = level === "info" && isChatter(args) ? "debug" : level;
			// Lines below the level are dropped before they are shaped: a request's debug lines cost nothing at warn.
			if (Loggers.Console.LEVELS.indexOf(as) > shown) return;
			const shaped =
				this.format === "json" ? (isFields(args[0]) ? [jsonFields(args[0]), ...args.slice(1)] : args) : shortArgs(args);
			handler(as, shaped);
		};
	}
}

/** The broker's logger option for a level and format (false: no log at all). */
export function plazaLogger(level: LogLevels | false, format: "json" | "short"): PlazaConsoleLogger | false {
	if (level === false) return false;
	return new PlazaConsoleLogger(
		{ level, formatter: format === "json" ? "jsonext" : "short", colors: format !== "json" },
		format,
	);
}
