import { ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import fs from "node:fs";

/** The repository's root, whether this runs from the sources (Jest) or from dist/ (the benchmark). */
const root = ((dir: string) => (path.basename(dir) === "dist" ? path.dirname(dir) : dir))(path.resolve(__dirname, "../.."));

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

/** Starts the built entry point (what `npm start` runs) with the given environment. */
export function startMain(env: Record<string, string>): RunningProcess {
	if (!fs.existsSync(mainScript)) throw new Error(`${mainScript} is missing: run "npm run build" first (npm test does)`);
	const child = spawn(process.execPath, [mainScript], { env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] });
	let output = "";
	child.stdout?.on("data", chunk => (output += chunk));
	child.stderr?.on("data", chunk => (output += chunk));
	const exited = new Promise<number | string>(resolve => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
	return { child, output: () => output, exited };
}

/** Polls a URL until it answers 200, or fails after the timeout. */
export async function waitForHealthy(url: string, timeoutMs = 15000, proc?: RunningProcess): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		try {
			if ((await fetch(url)).status === 200) return;
		} catch {
			// not listening yet
		}
		await new Promise(resolve => setTimeout(resolve, 100));
	}
	throw new Error(`${url} did not become healthy in ${timeoutMs} ms${proc ? `; output:\n${proc.output()}` : ""}`);
}
