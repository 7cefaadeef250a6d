import { ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, waitForHealthy } from "./process";

/** Debian's nats-server, where these machines have it. */
export const natsServerBinary = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find(
	file => fs.existsSync(file),
);

/**
 * A nats-server of the test's own, on free ports, stopped by its pid. Uploads travel in one
 * message, so it takes payloads up to 16 MB (NATS's default is 1 MB). As in every shipped
 * configuration, clients need a user and password (a random one per server).
 */
export class TestNats {
	private child?: ChildProcess;
	private readonly config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "plaza-nats-")), "nats.conf");
	readonly user = "plaza";
	readonly password = randomBytes(16).toString("hex");

	private constructor(
		readonly port: number,
		private readonly monitorPort: number,
	) {
		fs.writeFileSync(
			this.config,
			`max_payload: 16777216\nauthorization {\n  user: ${this.user}\n  password: "${this.password}"\n}\n`,
		);
	}

	static async start(): Promise<TestNats> {
		if (!natsServerBinary) throw new Error("nats-server is not installed (Debian package nats-server)");
		const nats = new TestNats(await freePort(), await freePort());
		await nats.resume();
		return nats;
	}

	/** The server's address with its credentials: what TRANSPORTER is set to. */
	get url(): string {
		return `nats://${this.user}:${this.password}@127.0.0.1:${this.port}`;
	}

	/** The server's process id while it runs (the benchmark reads its CPU). */
	get pid(): number | undefined {
		return this.child?.pid;
	}

	/** The server's address without credentials (which it refuses). */
	get anonymousUrl(): string {
		return `nats://127.0.0.1:${this.port}`;
	}

	/** Starts the server again on the same port (after stop). */
	async resume(): Promise<void> {
		this.child = spawn(
			natsServerBinary!,
			["-a", "127.0.0.1", "-p", String(this.port), "-m", String(this.monitorPort), "-c", this.config],
			{ stdio: "ignore" },
		);
		await waitForHealthy(`http://127.0.0.1:${this.monitorPort}/healthz`);
	}

	async stop(): Promise<void> {
		const child = this.child;
		if (!child || child.exitCode !== null) return;
		const exited = new Promise(resolve => child.once("exit", resolve));
		process.kill(child.pid!, "SIGTERM");
		await exited;
	}
}
