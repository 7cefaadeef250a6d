import { ServiceSchema } from "moleculer";
import { periodicMixin } from "./periodic.mixin";

/** A repository that keeps rows with an end (sessions, attempt counters) and can forget the ended ones. */
interface Expiring {
	removeExpired(now: number): Promise<unknown>;
}

/**
 * A service whose repository forgets its expired rows every `everyMs`, from start to stop (`what` names them in a
 * warning).
 */
export function expiryMixin(everyMs: number, what: string): Partial<ServiceSchema> {
	return periodicMixin<Expiring>(everyMs, `Purging expired ${what}`, repo => repo.removeExpired(Date.now()));
}
