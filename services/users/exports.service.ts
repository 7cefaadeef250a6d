import { createHash } from "node:crypto";
import { Context, ServiceBroker, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { periodicMixin } from "../../shared/persistence/periodic.mixin";
import { failures } from "../../shared/errors";
import { Caller, callerOf } from "../../shared/caller";
import { changed, changedNothing } from "../../shared/changes/changes";
import { typedService } from "../../shared/implement";
import { exportsOperations } from "../../shared/catalogue";
import { newGuid } from "../../shared/wire/guid";
import { ExportsRepository } from "./exports.repository";
import { exportsMigrations } from "./exports.schema";
import { exportsMongoMigrations, MongoExportsRepository } from "./exports.mongo";
import { ExportRow } from "./exports.rows";
import { archiveScopes, archiveText, sections } from "./export-archive";

/** An unfinished export whose run showed no sign of life for this long was left by a process that died. */
const quietMs = 60_000;
/** How often the sweep looks for such exports, and how many it takes up at a time. */
const sweepEveryMs = 30_000;
const restartsPerSweep = 100;

interface ExportsMethods {
	owned(ctx: Context, id: string): Promise<ExportRow>;
	start(row: ExportRow): void;
	make(row: ExportRow): Promise<void>;
	restartQuiet(): Promise<number>;
}

type Repository = RepositoryContract<ExportsRepository>;

const { implement, define } = typedService<ExportsMethods, WithRepository<Repository>>();

/** Thrown in a run whose export a restart took over: it stops, and writes nothing more. */
class Superseded extends Error {}

/** The export as the API shows it; DownloadUrl once its archive is there. */
const recordOf = (row: ExportRow) => ({
	Id: row.Id,
	UserId: row.UserId,
	Status: row.Status,
	Progress: row.Progress,
	...(row.Status === "Ready" ? { DownloadUrl: `/exports/${row.Id}/file` } : {}),
	CreatedTime: row.CreatedTime,
	UpdatedTime: row.UpdatedTime,
	...(row.CompletedTime !== undefined ? { CompletedTime: row.CompletedTime } : {}),
});

/** Whom a run reads as: the caller, with their roles and scopes, not the session or key they came with. */
const runAs = ({ userId, userName, displayName, roles, scopes }: Caller): Caller => ({
	userId,
	userName,
	displayName,
	roles,
	...(scopes ? { scopes } : {}),
});

const stopping = (broker: ServiceBroker) => (broker as ServiceBroker & { stopping?: boolean }).stopping === true;

/**
 * Exports of one's own data: an archive of everything Plaza holds about the caller, read through the operations
 * themselves as that caller (so it holds what they would be shown) after CreateDataExport answered, step by step with
 * its progress; the owner's alone to read. An export a dead process left unfinished is restarted by the sweep.
 */
export function exportsService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "exports",
		mixins: [
			// Listed before the repository's mixin: Moleculer starts the last-listed mixin first, so the store is ready.
			periodicMixin<Repository, ExportsMethods>(
				sweepEveryMs,
				"Restarting exports whose process died",
				(_repo, service) => service.restartQuiet(),
				{ atStart: true },
			),
			repositoryMixin<Repository>(config.store, {
				domain: "exports",
				migrations: exportsMigrations,
				create: db => new ExportsRepository(db),
				mongo: { migrations: exportsMongoMigrations, create: store => new MongoExportsRepository(store) },
			}),
		],

		actions: {
			/** Internal: a deleted account's exports and archives. */
			forgetUser: {
				visibility: "public",
				callers: ["users"],
				async handler(ctx: Context<{ userId: string }>) {
					const removed = await this.repo.removeAllOf(ctx.params.userId);
					await changed(ctx, { domain: "exports" });
					return removed;
				},
			},

			...implement(exportsOperations.CreateDataExport, async function (ctx) {
				const caller = callerOf(ctx);
				if (!caller?.userId)
					throw failures.forbidden("An export is of one's own data: the administrator's key has none");
				const lacking = caller.scopes ? archiveScopes.filter(scope => !caller.scopes?.includes(scope)) : [];
				if (lacking.length)
					throw failures.forbidden(
						`An export reads ${archiveScopes.join(", ")}; this credential lacks ${lacking.join(", ")}`,
					);
				// One export under way per user: asking again (a double click, a retry) is answered with it.
				const current = await this.repo.underWay(caller.userId);
				if (current) {
					changedNothing(ctx);
					return recordOf(current);
				}
				const now = Date.now();
				const row: ExportRow = {
					Id: newGuid(),
					UserId: caller.userId,
					Status: "Pending",
					Progress: 0,
					Caller: runAs(caller),
					Run: 1,
					CreatedTime: now,
					UpdatedTime: now,
				};
				await this.repo.add(row);
				await changed(ctx, { domain: "exports" });
				this.start(row);
				return recordOf(row);
			}),

			...implement(exportsOperations.FindDataExport, async function (ctx) {
				return recordOf(await this.owned(ctx, ctx.params.Id));
			}),

			...implement(exportsOperations.DataExportFile, async function (ctx) {
				const row = await this.owned(ctx, ctx.params.Id);
				const archive = row.Status === "Ready" ? await this.repo.archive(row.Id) : undefined;
				if (!archive) throw failures.notFound(`The archive of export ${row.Id}`);
				const bytes = Buffer.from(archive.Data);
				return {
					Id: row.Id,
					ContentType: "application/json",
					Size: bytes.length,
					ETag: archive.ETag,
					Data: bytes.toString("base64"),
				};
			}),
		},

		methods: {
			/** The export, if it is the caller's: another user's is 404, as if it did not exist; the admin's key has none. */
			async owned(ctx: Context, id: string) {
				const me = callerOf(ctx)?.userId;
				if (!me) throw failures.forbidden("Exports are their owner's alone: the administrator's key has no user");
				const row = await this.repo.find(id);
				if (!row || row.UserId !== me) throw failures.notFound(`Export ${id}`);
				return row;
			},

			/**
			 * Makes the archive without holding up whoever started it. A failure marks the export Failed; a node stopping
			 * leaves it unfinished, for the sweep of a node that runs on.
			 */
			start(row: ExportRow) {
				void this.make(row).catch(async (err: unknown) => {
					if (err instanceof Superseded) return;
					if (stopping(this.broker)) {
						this.logger.info(`Export ${row.Id} stopped with its node; the sweep will restart it`);
						return;
					}
					this.logger.warn({ event: "export-failed", exportId: row.Id, error: err }, `Export ${row.Id} failed`);
					await this.repo.fail(row.Id, row.Run, Date.now()).catch((failed: unknown) => {
						this.logger.warn({ event: "export-failed", exportId: row.Id, error: failed }, "Marking it Failed failed");
					});
				});
			},

			/** One run: each section read as the export's caller, its progress after each page, then the archive. */
			async make(row: ExportRow) {
				// A call of this service's own (posts.commentsBy serves only it), as the caller who asked, with no deadline
				// left over from the request that started it.
				const ctx = Context.create(this.broker);
				ctx.service = this;
				ctx.meta = { user: row.Caller };
				const steps = sections.length + 1;
				let done = 0;
				const beat = async () => {
					const progress = Math.floor((done * 100) / steps);
					if (!(await this.repo.progress(row.Id, row.Run, progress, Date.now()))) throw new Superseded();
				};
				await beat();
				const read: Record<string, unknown> = {};
				for (const section of sections) {
					read[section.name] = await section.read(ctx, row.UserId, beat);
					done += 1;
					await beat();
				}
				const text = archiveText(read, Date.now());
				const archive = { ExportId: row.Id, Data: text, ETag: createHash("sha256").update(text).digest("hex") };
				if (!(await this.repo.complete(row.Id, row.Run, archive, Date.now()))) throw new Superseded();
			},

			/** Restarts the unfinished exports whose run went quiet (its process died): how many. */
			async restartQuiet() {
				const now = Date.now();
				const taken = await this.repo.restartQuiet(now - quietMs, now, restartsPerSweep);
				for (const row of taken) this.start(row);
				if (taken.length) this.logger.info(`Restarted ${taken.length} exports whose run had gone quiet`);
				return taken.length;
			},
		},
	});
}
