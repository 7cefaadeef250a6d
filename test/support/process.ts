import { ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import fs from "node:fs";

/** The repository's root, whether this runs from the sources (Jest) or from dist/ (the benchmark). */
const root = ((dir: string) => (path.basename(dir) === "dist" ? path.dirname(dir) : dir))(
	path.resolve(__dirname, "../.."),
);

export const mainScript = path.join(root, "dist", "main.js");

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

export interface RunningProcess {
	child: ChildProcess;
	output(): string;
	/** Resolves with the exit code (or signal name) once the process has ended. */
	exited: Promise<number | string>;
}

/**
 * Starts the built entry point (what `npm start` runs) with the given environment; MONGO_URI only where `env` gives it
 * (the contract suites' server is not every child's store).
 */
export function startMain(env: Record<string, string>): RunningProcess {
	if (!fs.existsSync(mainScript))
		throw new Error(`${mainScript} is missing: run "npm run build" first (npm test does)`);
	const child = spawn(process.execPath, ["--experimental-async-context-frame", mainScript], {
		env: { ...process.env, MONGO_URI: "", LOG_LEVEL: "warn", ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let output = "";
	child.stdout?.on("data", chunk => (output += chunk));
	child.stderr?.on("data", chunk => (output += chunk));
	const exited = new Promise<number | string>(resolve =>
		child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
	);
	return { child, output: () => output, exited };
}

/**
 * Polls a URL until it answers 200. A process that ends meanwhile fails the wait at once; one still
 * starting is given until the timeout, which is long because a loaded machine starts slowly.
 */
export async function waitForHealthy(url: string, timeoutMs = 60_000, proc?: RunningProcess): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (proc && proc.child.exitCode !== null)
			throw new Error(
				`${url}: the process exited (${proc.child.exitCode}) before it was healthy; output:\n${proc.output()}`,
			);
		try {
			if ((await fetch(url)).status === 200) return;
		} catch {
			// not listening yet
		}
		await new Promise(resolve => setTimeout(resolve, 100));
	}
	throw new Error(`${url} did not become healthy in ${timeoutMs} ms${proc ? `; output:\n${proc.output()}` : ""}`);
}

/** Runs tasks at most `size` at a time, in the order they came. */
export class Slots {
	private free: number;
	private readonly waiting: Array<() => void> = [];

	constructor(size: number) {
		this.free = size;
	}

	async run<T>(task: () => Promise<T>): Promise<T> {
		if (this.free > 0) this.free -= 1;
		else await new Promise<void>(resolve => this.waiting.push(resolve));
		try {
			return await task();
		} finally {
			const next = this.waiting.shift();
			if (next) next();
			else this.free += 1;
		}
	}
}
