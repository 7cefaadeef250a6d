import { Logger, ServiceBroker } from "moleculer";
import { Pool, QueryResult } from "pg";
import { failures } from "../errors";
import { newGuid } from "../wire/guid";
import { Doc, FindParams, IndexSpec, Query, StoreAdapter, Update } from "./store";
import { UniqueViolations } from "./unique";
import { Params, quoteName } from "./postgres.sql";
import { orderOf, whereOf } from "./postgres.query";
import { updateExpr } from "./postgres.update";
import { indexDdl, tableDdl } from "./postgres.schema";
import { acquirePool, changeSchema, isConnectionLoss, releasePool } from "./postgres.pool";

interface Row {
	id: string;
	doc: Record<string, unknown>;
}

/** Waits before the read retries after a lost connection: enough for the pool to notice and reconnect. */
const readRetriesMs = [100, 400];

/**
 * PostgreSQL as a document store (moleculer-db's adapter interface): one table per collection,
 * `(id, doc jsonb)`, the store's MongoDB-style queries and updates translated to SQL with bound
 * values (postgres.query.ts, postgres.update.ts), declared indexes as expression indexes.
 * Losing the server costs the requests of that moment a 503; the pool reconnects by itself.
 */
export class PostgresStoreAdapter implements StoreAdapter, UniqueViolations {
	private pool: Pool | undefined;
	private logger: Logger | undefined;
	private nullsNotDistinct = true;
	/** Index name → its declaration: which field a unique violation names. */
	private readonly indexes = new Map<string, IndexSpec>();
	private readonly uniqueFields = new Set<string>();

	constructor(
		private readonly url: string,
		private readonly collection: string,
	) {}

	init(_broker: ServiceBroker, service: { logger?: Logger }): void {
		this.logger = service.logger;
	}

	async connect(): Promise<void> {
		this.pool ??= acquirePool(this.url, this.logger);
		try {
			const { rows } = await this.pool.query<{ version: number }>("SELECT current_setting('server_version_num')::int AS version");
			this.nullsNotDistinct = rows[0].version >= 150000;
			await changeSchema(this.pool, [tableDdl(this.collection)]);
		} catch (err) {
			await this.disconnect();
			throw err;
		}
	}

	async disconnect(): Promise<void> {
		if (!this.pool) return;
		this.pool = undefined;
		await releasePool(this.url);
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		if (spec.unique && !spec.sparse && !this.nullsNotDistinct) {
			this.logger?.warn(`PostgreSQL before 15 lets several ${this.collection} lack ${spec.field} despite its unique index`);
		}
		const statements = indexDdl(this.collection, spec, this.nullsNotDistinct);
		for (const { name } of statements) this.indexes.set(name, spec);
		if (spec.unique) this.uniqueFields.add(spec.field);
		if (statements.length) await changeSchema(this.connected(), statements.map(s => s.sql));
	}

	violatedField(err: unknown): string | undefined {
		const { code, constraint } = err as { code?: string; constraint?: string };
		if (code !== "23505") return undefined;
		const spec = constraint ? this.indexes.get(constraint) : undefined;
		return spec ? (spec.reportAs ?? spec.field) : "";
	}

	async find({ query, sort, offset, limit }: FindParams = {}): Promise<Doc[]> {
		const p = new Params();
		let sql = `SELECT id, doc FROM ${this.table} WHERE ${this.where(query, p)}${orderOf(sort)}`;
		if (limit && limit > 0) sql += ` LIMIT ${p.add(limit, "bigint")}`;
		if (offset && offset > 0) sql += ` OFFSET ${p.add(offset, "bigint")}`;
		return (await this.read(sql, p.values)).rows.map(toDoc);
	}

	async findOne(query: Query): Promise<Doc | null> {
		const p = new Params();
		return firstDoc(await this.read(`SELECT id, doc FROM ${this.table} WHERE ${this.where(query, p)} LIMIT 1`, p.values));
	}

	async findById(id: string): Promise<Doc | null> {
		return firstDoc(await this.read(`SELECT id, doc FROM ${this.table} WHERE id = $1`, [String(id)]));
	}

	async findByIds(ids: string[]): Promise<Doc[]> {
		return (await this.read(`SELECT id, doc FROM ${this.table} WHERE id = ANY($1::text[])`, [ids.map(String)])).rows.map(toDoc);
	}

	async count({ query }: { query?: Query } = {}): Promise<number> {
		const p = new Params();
		const { rows } = await this.read<{ n: string }>(`SELECT count(*) AS n FROM ${this.table} WHERE ${this.where(query, p)}`, p.values);
		return Number(rows[0].n);
	}

	async insert(doc: Doc): Promise<Doc> {
		const { _id, ...fields } = doc;
		const sql = `INSERT INTO ${this.table} (id, doc) VALUES ($1, $2::jsonb) RETURNING id, doc`;
		return toDoc((await this.write(sql, [String(_id ?? newGuid()), JSON.stringify(fields)])).rows[0]);
	}

	/** moleculer-db's bulk insert: one statement, so all or none are written. */
	async insertMany(docs: Doc[]): Promise<Doc[]> {
		const withIds = docs.map(doc => ({ ...doc, _id: String(doc._id ?? newGuid()) }));
		const sql = `INSERT INTO ${this.table} (id, doc) SELECT d->>'_id', d - '_id' FROM jsonb_array_elements($1::jsonb) AS d RETURNING id, doc`;
		return (await this.write(sql, [JSON.stringify(withIds)])).rows.map(toDoc);
	}

	async updateById(id: string, update: Update): Promise<Doc | null> {
		const p = new Params();
		const sql = `UPDATE ${this.table} SET doc = ${updateExpr(update, p)} WHERE id = ${p.add(String(id))} RETURNING id, doc`;
		return firstDoc(await this.write(sql, p.values));
	}

	async updateMany(query: Query, update: Update): Promise<number> {
		const p = new Params();
		const sql = `UPDATE ${this.table} SET doc = ${updateExpr(update, p)} WHERE ${this.where(query, p)}`;
		return (await this.write(sql, p.values)).rowCount ?? 0;
	}

	async removeById(id: string): Promise<Doc | null> {
		return firstDoc(await this.write(`DELETE FROM ${this.table} WHERE id = $1 RETURNING id, doc`, [String(id)]));
	}

	async removeMany(query: Query): Promise<number> {
		const p = new Params();
		return (await this.write(`DELETE FROM ${this.table} WHERE ${this.where(query, p)}`, p.values)).rowCount ?? 0;
	}

	async clear(): Promise<number> {
		return (await this.write(`DELETE FROM ${this.table}`, [])).rowCount ?? 0;
	}

	entityToObject(entity: Doc): Doc {
		return { ...entity };
	}

	/** moleculer-db's `idField` setting, should a service name its ids otherwise. */
	beforeSaveTransformID(entity: Record<string, unknown>, idField: string): Record<string, unknown> {
		if (idField === "_id" || entity[idField] === undefined) return { ...entity };
		const { [idField]: id, ...rest } = entity;
		return { ...rest, _id: id };
	}

	afterRetrieveTransformID(entity: Record<string, unknown>, idField: string): Record<string, unknown> {
		if (idField === "_id") return entity;
		const { _id, ...rest } = entity;
		return { ...rest, [idField]: _id };
	}

	private get table(): string {
		return quoteName(this.collection);
	}

	private where(query: Query | undefined, p: Params): string {
		return whereOf(query, p, field => this.uniqueFields.has(field));
	}

	private connected(): Pool {
		if (!this.pool) throw new Error(`The ${this.collection} store is not connected`);
		return this.pool;
	}

	/** A read is retried when the connection it got turns out dead (the server restarted since). */
	private async read<R extends object = Row>(sql: string, values: unknown[], attempt = 0): Promise<QueryResult<R>> {
		try {
			return await this.connected().query<R>(sql, values);
		} catch (err) {
			const wait = readRetriesMs[attempt];
			if (!isConnectionLoss(err) || wait === undefined) throw this.failure(err);
			await new Promise(resolve => setTimeout(resolve, wait));
			return this.read<R>(sql, values, attempt + 1);
		}
	}

	/** A write is not retried: whether a statement cut off with its connection took effect is unknown. */
	private async write(sql: string, values: unknown[]): Promise<QueryResult<Row>> {
		try {
			return await this.connected().query<Row>(sql, values);
		} catch (err) {
			throw this.failure(err);
		}
	}

	private failure(err: unknown): unknown {
		if (isConnectionLoss(err)) {
			this.logger?.warn(`PostgreSQL is out of reach: ${(err as Error).message}`);
			return failures.serviceUnavailable();
		}
		// jsonb cannot hold U+0000; it can only have come from a client.
		if ((err as { code?: string }).code === "22P05") return failures.invalidBody("Text may not contain the character U+0000");
		return err;
	}
}

function toDoc(row: Row): Doc {
	return { _id: row.id, ...row.doc };
}

function firstDoc(result: QueryResult<Row>): Doc | null {
	return result.rows.length ? toDoc(result.rows[0]) : null;
}
