import { Service, ServiceSchema } from "moleculer";
import { WithRepository } from "./repository.mixin";

/**
 * A service that runs `job` on its repository every `everyMs`, from start to stop (and once at start
 * when `atStart`); a failed run is a warning that names `what`, and the next run comes as planned.
 * `S`: what the service it is mixed into has beside Service's own (its methods, its repository's keys).
 */
export function periodicMixin<R, S extends object = object>(
	everyMs: number,
	what: string,
	job: (repo: R, service: Service & S) => Promise<unknown>,
	options: { atStart?: boolean } = {},
): Partial<ServiceSchema> {
	let timer: NodeJS.Timeout | undefined;
	return {
		started(this: Service) {
			const self = this as Service & WithRepository<R> & S;
			const run = () => void job(self.repo, self).catch((err: unknown) => this.logger.warn(`${what} failed:`, err));
			if (options.atStart) run();
			timer = setInterval(run, everyMs);
			timer.unref();
		},
		stopped() {
			clearInterval(timer);
		},
	};
}
