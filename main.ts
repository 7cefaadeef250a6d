import { loadConfig } from "./shared/config";
import { createPlaza } from "./plaza";

/** `npm start`: run Plaza as configured by the environment, and stop cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
	const broker = createPlaza(loadConfig());
	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		broker.logger.info(`${signal} received, stopping`);
		await broker.stop();
		process.exit(0);
	};
	process.on("SIGINT", () => void stop("SIGINT"));
	process.on("SIGTERM", () => void stop("SIGTERM"));
	await broker.start();
}

main().catch(err => {
	console.error(err);
	process.exit(1);
});
