import { Server } from "node:http";
import { loadConfig } from "./shared/config";
import { startProbeServer } from "./shared/probes";
import { createPlaza } from "./plaza";

/**
 * `npm start`, and every process of the distributed mode: runs Plaza as the environment says, with
 * its probe server when PROBE_PORT is set, and stops gracefully on SIGINT/SIGTERM (the node first
 * leaves the cluster, then finishes the calls it accepted, then exits).
 */
async function main(): Promise<void> {
	const config = loadConfig();
	const broker = createPlaza(config);
	let probes: Server | undefined;
	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		broker.logger.info(`${signal} received, stopping`);
		await broker.stop();
		probes?.close();
		process.exit(0);
	};
	process.on("SIGINT", () => void stop("SIGINT"));
	process.on("SIGTERM", () => void stop("SIGTERM"));
	// Probes first: an orchestrator sees the process alive (and not yet ready) while it starts.
	probes = config.cluster.probePort !== undefined ? await startProbeServer(broker, config.cluster.probePort) : undefined;
	await broker.start();
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
