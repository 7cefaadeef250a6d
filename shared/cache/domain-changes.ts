import { ServiceBroker } from "moleculer";
import { isReadOnly, Row, SqlDatabase, SqlExecutor, SqlValue } from "../persistence/sql/database";
import { catalogue } from "../catalogue";

/**
 * The domains whose changes are announced: those some operation's kept answers depend on (the catalogue's
 * `cacheResponse`).
 */
export const announcedDomains: ReadonlySet<string> = new Set(catalogue.flatMap(op => op.cacheResponse?.domains ?? []));

/** The event that tells every node a domain's data changed (a write committed there). */
export const domainChangedEvent = "plaza.domain.changed";

export interface DomainChange {
	domain: string;
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

/**
 * Tells every node that a write to `domain` committed: this node's generation moves at once, then the event goes out.
 */
export function domainAnnouncer(domain: string, broker: ServiceBroker): () => Promise<void> {
	return async () => {
		domainGenerations(broker).bump(domain);
		await broker.broadcast<DomainChange>(domainChangedEvent, { domain });
	};
}

/**
 * A domain's database that tells every node when a write committed: this node's generation moves at
 * once, then the event goes out, and only then does the write return, so the change is announced
 * on the bus before any answer that follows from it (as for the caches' invalidations).
 */
export function announcingChanges(db: SqlDatabase, domain: string, broker: ServiceBroker): SqlDatabase {
	const announce = domainAnnouncer(domain, broker);
	const after = async <T>(write: Promise<T>): Promise<T> => {
		try {
			return await write;
		} finally {
			// A failed write may have committed part of its work (single statements commit alone): announce either way.
			await announce();
		}
	};
	return {
		dialect: db.dialect,
		all: <T extends object = Row>(sql: string, params?: readonly SqlValue[]) =>
			isReadOnly(sql) ? db.all<T>(sql, params) : after(db.all<T>(sql, params)),
		get: <T extends object = Row>(sql: string, params?: readonly SqlValue[]) =>
			isReadOnly(sql) ? db.get<T>(sql, params) : after(db.get<T>(sql, params)),
		run: (sql: string, params?: readonly SqlValue[]) => after(db.run(sql, params)),
		transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) => after(db.transaction(work)),
		withSchemaLock: <T>(work: (tx: SqlExecutor) => Promise<T>) => db.withSchemaLock(work),
		close: () => db.close(),
	};
}
