import { Middleware, Service, ServiceBroker, ServiceSchema } from "moleculer";
import { PlazaConfig } from "./shared/config";
import { brokerOptions } from "./shared/broker-options";
import { keepIdempotencySettings } from "./shared/idempotency/settings";
import { usersService } from "./services/users/users.service";
import { sessionsService } from "./services/users/sessions.service";
import { limitsService } from "./services/users/limits.service";
import { apiKeysService } from "./services/users/api-keys.service";
import { reportsService } from "./services/users/reports.service";
import { exportsService } from "./services/users/exports.service";
import { graphService } from "./services/graph/graph.service";
import { postsService } from "./services/posts/posts.service";
import { venuesService } from "./services/venues/venues.service";
import { systemsService } from "./services/systems/systems.service";
import { devicesService } from "./services/systems/devices.service";
import { reservationsService } from "./services/systems/reservations.service";
import { mediaService } from "./services/systems/media.service";
import { GatewayPort, gatewayService } from "./gateway/gateway.service";
import { descriptionService } from "./gateway/description/description.service";
import { cachesService } from "./shared/cache/caches.service";

/** Every service Plaza can run, by the name SERVICES uses; a domain may run as several Moleculer services. */
export const serviceFactories: Record<string, Array<(config: PlazaConfig) => ServiceSchema>> = {
	users: [usersService, sessionsService, limitsService, apiKeysService, reportsService, exportsService],
	graph: [graphService],
	posts: [postsService],
	venues: [venuesService],
	systems: [systemsService, devicesService, reservationsService, mediaService],
	// The HTTP gateway itself last: it waits for the services of its own process (see below).
	gateway: [descriptionService, gatewayService],
};

/**
 * A broker running the services this process is configured for: all of them in one process by
 * default (the embedded mode), or a chosen few joined to the others over the transporter.
 */
export function createPlaza(config: PlazaConfig, extraMiddlewares: Middleware[] = []): ServiceBroker {
	const names = config.services ?? Object.keys(serviceFactories);
	const unknown = names.filter(n => !serviceFactories[n]);
	if (unknown.length)
		throw new Error(
			`Unknown service(s) in SERVICES: ${unknown.join(", ")}; known: ${Object.keys(serviceFactories).join(", ")}`,
		);

	// Signals are main.ts's alone: Moleculer's own handlers ran a second stop beside it (every service stopped twice).
	// The gateway's port opens last, once every service of the process is up (so a first request never meets a 503 in the
	// embedded mode) and the node is announced; a failure to listen fails the start.
	const broker = new ServiceBroker({
		...brokerOptions(config, extraMiddlewares),
		skipProcessEventRegistration: true,
		started: async started => (started.getLocalService("gateway") as (Service & GatewayPort) | undefined)?.openPort(),
	});
	keepIdempotencySettings(broker, config);
	// Every node applies the cache invalidations the writers broadcast, whatever it runs.
	broker.createService(cachesService());
	// The gateway starts after the services of its own process; services on other nodes it does not wait for.
	const schemas = names.flatMap(n => serviceFactories[n].map(factory => factory(config)));
	const local = schemas.filter(s => s.name !== "gateway");
	for (const schema of local) broker.createService(schema);
	const gateway = schemas.find(s => s.name === "gateway");
	if (gateway) broker.createService({ ...gateway, dependencies: local.map(s => s.name) });
	return broker;
}
