import { Service, ServiceSchema } from "moleculer";
import { WithRepository } from "./repository.mixin";

/** A repository that keeps rows with an end (sessions, attempt counters) and can forget the ended ones. */
interface Expiring {
	removeExpired(now: number): Promise<unknown>;
}

/** A service whose repository forgets its expired rows every `everyMs`, from start to stop (`what` names them in a warning). */
export function expiryMixin(everyMs: number, what: string): Partial<ServiceSchema> {
	let timer: NodeJS.Timeout | undefined;
	return {
		started(this: Service) {
			const { repo } = this as Service & WithRepository<Expiring>;
			timer = setInterval(() => {
				repo.removeExpired(Date.now()).catch(err => this.logger.warn(`Purging expired ${what} failed:`, err));
			}, everyMs);
			timer.unref();
		},
		stopped() {
			clearInterval(timer);
		},
	};
}
