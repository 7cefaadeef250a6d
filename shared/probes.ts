import http from "node:http";
import { AddressInfo } from "node:net";
import { ServiceBroker } from "moleculer";
import { currentPrometheusText } from "./metrics";

/**
 * Ready to take work: every local service has started (stores connected), the node is not stopping,
 * and, in the distributed mode, it is joined to the transporter.
 */
export function isReady(broker: ServiceBroker): boolean {
	return broker.started && !broker.stopping && (!broker.transit || broker.transit.connected);
}

/**
 * The probe server of a process (PROBE_PORT): GET /live (the process answers), GET /ready (see
 * isReady) and GET /metrics (Prometheus). For orchestrators and scrapers on the inside network.
 */
export async function startProbeServer(broker: ServiceBroker, port: number): Promise<http.Server> {
	const server = http.createServer((req, res) => {
		const path = (req.url ?? "/").split("?")[0];
		const send = (status: number, type: string, body: string) => {
			res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" });
			res.end(body);
		};
		if (req.method !== "GET") return send(405, "text/plain", "GET only\n");
		if (path === "/live") return send(200, "application/json", JSON.stringify({ Status: "Up", NodeID: broker.nodeID }));
		if (path === "/ready") {
			const ready = isReady(broker);
			return send(
				ready ? 200 : 503,
				"application/json",
				JSON.stringify({ Status: ready ? "Ready" : "NotReady", NodeID: broker.nodeID }),
			);
		}
		if (path !== "/metrics") return send(404, "text/plain", "Not found\n");
		currentPrometheusText(broker).then(
			text => send(200, "text/plain; version=0.0.4; charset=utf-8", text ?? ""),
			(err: Error) => send(500, "text/plain", `${err.message}\n`),
		);
	});
	await new Promise<void>(resolve => server.listen(port, resolve));
	broker.logger.info(`Probes listening on port ${(server.address() as AddressInfo).port}: /live, /ready, /metrics`);
	return server;
}
