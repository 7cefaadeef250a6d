import { ServiceBroker } from "moleculer";
import { catalogue } from "../catalogue";
import { batchedBroadcast } from "../bus/turn-batch";
import { Domain } from "../domains";

/**
 * The domains whose changes are announced: those some operation's kept answers depend on (the catalogue's
 * `cacheResponse`).
 */
export const announcedDomains: ReadonlySet<Domain> = new Set(catalogue.flatMap(op => op.cacheResponse?.domains ?? []));

/** The event that tells every node a domain's data changed (a write committed there): a batch of DomainChanges. */
export const domainChangedEvent = "plaza.domain.changed";

export interface DomainChange {
	domain: Domain;
}

/**
 * Each node's count of the changes it has heard of, per domain. An answer computed while a domain
 * stood at some generation is stale once that generation moves on: what depends on a whole domain
 * (a kept AllUsers page) is kept with the generations it was read at, and never served past them.
 */
export class DomainGenerations {
	private readonly counts = new Map<string, number>();

	/** Counts that jump on every missed-change suspicion (see bumpAll) and never repeat. */
	private epoch = 0;

	of(domains: readonly string[]): string {
		return `${this.epoch}:${domains.map(d => this.counts.get(d) ?? 0).join(",")}`;
	}

	bump(domain: string): void {
		this.counts.set(domain, (this.counts.get(domain) ?? 0) + 1);
	}

	/** After a time cut off from the bus, when changes may have been missed: everything read before is stale. */
	bumpAll(): void {
		this.epoch += 1;
	}
}

const generations = new WeakMap<ServiceBroker, DomainGenerations>();

/** This node's generations. */
export function domainGenerations(broker: ServiceBroker): DomainGenerations {
	let found = generations.get(broker);
	if (!found) generations.set(broker, (found = new DomainGenerations()));
	return found;
}

const broadcastDomainChange = batchedBroadcast<DomainChange>(domainChangedEvent);

/**
 * Tells every node that a write to `domain` committed (see changes.ts): this node's generation moves at once, then
 * the news goes out with its turn's batch. Domains no kept answer depends on move nothing.
 */
export async function announceDomain(broker: ServiceBroker, domain: Domain): Promise<void> {
	if (!announcedDomains.has(domain)) return;
	domainGenerations(broker).bump(domain);
	await broadcastDomainChange(broker, { domain });
}
