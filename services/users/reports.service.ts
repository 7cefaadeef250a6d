import { Context, ServiceSchema } from "moleculer";
import { PlazaConfig } from "../../shared/config";
import { repositoryMixin, RepositoryContract, WithRepository } from "../../shared/persistence/repository.mixin";
import { failures } from "../../shared/errors";
import { callerOf, credentialOf } from "../../shared/caller";
import { changed } from "../../shared/changes/changes";
import { profilesOf } from "../../shared/profiles";
import { typedService } from "../../shared/implement";
import { reportsOperations } from "../../shared/catalogue";
import { newGuid } from "../../shared/wire/guid";
import { auditCallers, AuditInput } from "../../shared/audit";
import { ReportsRepository } from "./reports.repository";
import { reportsMigrations } from "./reports.schema";
import { MongoReportsRepository, reportsMongoMigrations } from "./reports.mongo";
import { ReportRow, ReportSubject } from "./reports.rows";

type Action = "TakeDown" | "Cloak" | "Dismiss";

interface ReportsMethods {
	checkSubject(ctx: Context, type: ReportSubject, id: string): Promise<void>;
	act(ctx: Context, report: ReportRow, action: Action): Promise<void>;
}

const { implement, define } = typedService<ReportsMethods, WithRepository<RepositoryContract<ReportsRepository>>>();

/** 404 is "already gone": a take-down of what its author deleted meanwhile is done all the same. */
const unlessGone = (err: unknown) => {
	if ((err as { code?: unknown } | null)?.code !== 404) throw err;
};

/**
 * Reports of abuse, which administrators resolve by acting through the operations they would call themselves (so
 * the same checks and declared changes hold), and the audit log of every administrator's write.
 */
export function reportsService(config: PlazaConfig): ServiceSchema {
	return define({
		name: "reports",
		mixins: [
			repositoryMixin<RepositoryContract<ReportsRepository>>(config.store, {
				domain: "reports",
				migrations: reportsMigrations,
				create: db => new ReportsRepository(db),
				mongo: { migrations: reportsMongoMigrations, create: store => new MongoReportsRepository(store) },
			}),
		],

		actions: {
			...implement(reportsOperations.CreateReport, async function (ctx) {
				const reporterId = callerOf(ctx)?.userId;
				if (!reporterId) throw failures.forbidden("Reports are made by users: the administrator's key has none");
				const { SubjectType, SubjectId, Reason } = ctx.params;
				await this.checkSubject(ctx, SubjectType, SubjectId);
				const report: ReportRow = {
					Id: newGuid(),
					ReporterId: reporterId,
					SubjectType: SubjectType,
					SubjectId,
					Reason,
					Status: "Open",
					CreatedTime: Date.now(),
				};
				await this.repo.add(report);
				await changed(ctx, { domain: "reports" });
				return report;
			}),

			...implement(reportsOperations.AllReports, async function (ctx) {
				return this.repo.page(ctx.params.Status, ctx.params.Offset, ctx.params.Limit);
			}),

			...implement(reportsOperations.ResolveReport, async function (ctx) {
				const { Id, Action, Note } = ctx.params;
				const report = await this.repo.find(Id);
				if (!report) throw failures.notFound(`Report ${Id}`);
				if (report.Status !== "Open")
					throw failures.alreadyExists("Id", `The report is ${report.Status.toLowerCase()}`);
				await this.act(ctx, report, Action);
				const status = Action === "Dismiss" ? "Dismissed" : "Resolved";
				const by = credentialOf(callerOf(ctx)) ?? "admin";
				const resolved = await this.repo.resolve(Id, status, Action, by, Note || undefined, Date.now());
				if (!resolved) throw failures.alreadyExists("Id", "The report was resolved meanwhile");
				await changed(ctx, { domain: "reports" });
				return resolved;
			}),

			...implement(reportsOperations.AuditLog, async function (ctx) {
				return this.repo.auditPage(ctx.params.Offset, ctx.params.Limit);
			}),

			/** Internal: one administrator's write, recorded by the operations middleware on whichever node ran it. */
			audit: {
				visibility: "public",
				callers: auditCallers,
				async handler(ctx: Context<AuditInput>) {
					await this.repo.audit({ Id: newGuid(), ...ctx.params, CreatedTime: Date.now() });
					return true;
				},
			},
		},

		methods: {
			/** 404 unless the reporter can see what they report (a private post is no one else's to report). */
			async checkSubject(ctx: Context, type: ReportSubject, id: string) {
				if (type === "Post") await ctx.call("posts.checkVisible", { postId: id });
				else if (type === "Comment") await ctx.call("posts.findComment", { Id: id });
				else if (!(await profilesOf(ctx, [id])).has(id)) throw failures.notFound(`User ${id}`);
			},

			/** What an administrator asked, done through the operations (and internal actions) that do it. */
			async act(ctx: Context, report: ReportRow, action: Action) {
				const { SubjectType: type, SubjectId: id } = report;
				if (action === "Dismiss") return;
				if (action === "TakeDown" && type === "Post")
					return ctx.call("posts.remove", { Id: id }).then(() => undefined, unlessGone);
				if (action === "TakeDown" && type === "Comment")
					return ctx.call("posts.removeComment", { Id: id }).then(() => undefined, unlessGone);
				// Cloaking (and taking a user down): the user, or the author of the post or comment.
				const author =
					type === "User"
						? id
						: (
								await ctx.call<{ AuthorId: string }, { Id: string }>(
									type === "Post" ? "posts.find" : "posts.findComment",
									{ Id: id },
								)
							).AuthorId;
				await ctx.call("users.cloak", { id: author });
			},
		},
	});
}
