import { Server } from "node:http";
import { constants } from "node:os";
import { loadConfig } from "./shared/config";
import { startProbeServer } from "./shared/probes";
import { createPlaza } from "./plaza";
import { contextFrameFlag, contextFrameMissing } from "./shared/idempotency/writes";

/**
 * `npm start`, and every process of the distributed mode: runs Plaza as the environment says, with
 * its probe server when PROBE_PORT is set, and stops gracefully on SIGINT/SIGTERM (the node first
 * leaves the cluster, then finishes the calls it accepted, then exits). A second signal during the
 * stop exits at once.
 */
async function main(): Promise<void> {
	const config = loadConfig();
	const broker = createPlaza(config);
	if (contextFrameMissing())
		broker.logger.warn(
			`Started without ${contextFrameFlag}: on Node 22 requests slow down once a write with an Idempotency-Key has run (npm start and the image pass it)`,
		);
	let probes: Server | undefined;
	let stopping = false;
	const stop = async (signal: NodeJS.Signals) => {
		if (stopping) {
			broker.logger.warn(`${signal} received again, exiting without waiting`);
			process.exit(128 + constants.signals[signal]);
		}
		stopping = true;
		broker.logger.info(`${signal} received, stopping (${signal} again exits at once)`);
		await broker.stop();
		probes?.close();
		process.exit(0);
	};
	// A stop that fails still ends the process, with its reason in the log.
	const stopOn = (signal: NodeJS.Signals) => {
		stop(signal).catch(err => {
			broker.logger.error("Stopping failed:", err);
			process.exit(1);
		});
	};
	process.on("SIGINT", () => stopOn("SIGINT"));
	process.on("SIGTERM", () => stopOn("SIGTERM"));
	// Probes first: an orchestrator sees the process alive (and not yet ready) while it starts.
	probes =
		config.cluster.probePort !== undefined ? await startProbeServer(broker, config.cluster.probePort) : undefined;
	await broker.start();
	// With a gateway here, it says where Plaza is ready once it listens (gateway.service.ts).
	if (!broker.getLocalService("gateway"))
		broker.logger.info(
			`Plaza node ${broker.nodeID} ready, running ${broker.services
				.map(s => s.name)
				.filter(n => !n.startsWith("$"))
				.join(", ")}`,
		);
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
