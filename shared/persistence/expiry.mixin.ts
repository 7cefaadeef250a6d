import { Service, ServiceSchema } from "moleculer";
import { WithRepository } from "./repository.mixin";

/** A repository that keeps rows with an end (sessions, attempt counters) and can forget the ended ones. */
interface Expiring {
	removeExpired(now: number): Promise<unknown>;
}

/**
 * A service that runs `job` on its repository every `everyMs`, from start to stop (and once at start
 * when `atStart`); a failed run is a warning that names `what`, and the next run comes as planned.
 */
export function periodicMixin<R>(everyMs: number, what: string, job: (repo: R, service: Service) => Promise<unknown>, options: { atStart?: boolean } = {}): Partial<ServiceSchema> {
	let timer: NodeJS.Timeout | undefined;
	return {
		started(this: Service) {
			const run = () => void job((this as Service & WithRepository<R>).repo, this).catch((err: unknown) => this.logger.warn(`${what} failed:`, err));
			if (options.atStart) run();
			timer = setInterval(run, everyMs);
			timer.unref();
		},
		stopped() {
			clearInterval(timer);
		},
	};
}

/** A service whose repository forgets its expired rows every `everyMs`, from start to stop (`what` names them in a warning). */
export function expiryMixin(everyMs: number, what: string): Partial<ServiceSchema> {
	return periodicMixin<Expiring>(everyMs, `Purging expired ${what}`, repo => repo.removeExpired(Date.now()));
}
