import { adminHeaders } from "./support/access-wire";
import { plazaForSuite, Session, WireRecord } from "./support/plaza";

type Records = WireRecord[];

/** Issue 38, item 5: reports of abuse, administrators' actions on them, and the audit log of every admin write. */
describe("reports of abuse and the audit log", () => {
	const {
		plaza,
		users: [author, reporter, bystander],
	} = plazaForSuite({ users: [{ FirstName: "Trou", LastName: "Ble" }, {}, {}] });
	const asAdmin = (method: string, path: string, body?: unknown) => plaza.http(method, path, body, adminHeaders);
	const report = (who: Session, SubjectType: string, SubjectId: unknown, Reason = "spam") =>
		who.http("POST", "/Reports", { SubjectType, SubjectId, Reason });
	const post = async (fields: Record<string, unknown> = {}) =>
		(await author.http("POST", "/Posts", { AuthorId: author.userId, Content: "buy now", ...fields })).body;

	test("a user reports what they can see; what they cannot is 404, a bad subject type 400, and neither is stored", async () => {
		const open = await post();
		const made = await report(reporter, "Post", open.Id, "it is spam");
		expect(made.status).toBe(200);
		expect(made.body).toMatchObject({ ReporterId: reporter.userId, SubjectType: "Post", Status: "Open" });
		const secret = await post({ IsPrivate: true });
		expect((await report(reporter, "Post", secret.Id)).status).toBe(404);
		expect((await report(reporter, "Planet", open.Id)).status).toBe(400);
		const listed = await asAdmin("GET", "/Reports?Status=Open");
		const ids = (listed.body as unknown as Records).map(r => r.SubjectId);
		expect(ids).toContain(open.Id);
		expect(ids).not.toContain(secret.Id);
		expect((await reporter.http("GET", "/Reports")).status).toBe(403);
	});

	test("TakeDown deletes the post; the report is resolved once; the audit log names both writes", async () => {
		const bad = await post();
		const made = (await report(reporter, "Post", bad.Id)).body;
		const resolved = await asAdmin("POST", `/Reports/${made.Id}/Resolve`, { Action: "TakeDown", Note: "spam" });
		expect(resolved.status).toBe(200);
		expect(resolved.body).toMatchObject({ Status: "Resolved", Action: "TakeDown", ResolvedBy: "admin", Note: "spam" });
		expect((await reporter.http("GET", `/Posts/${bad.Id}`)).status).toBe(404);
		expect((await asAdmin("POST", `/Reports/${made.Id}/Resolve`, { Action: "Dismiss" })).status).toBe(409);

		const log = (await asAdmin("GET", "/AuditLog")).body as unknown as Records;
		const mine = log.filter(entry => entry.SubjectId === bad.Id || entry.SubjectId === made.Id);
		expect(mine.map(entry => entry.Operation).sort()).toEqual(["DeletePost", "ResolveReport"]);
		expect(mine.every(entry => entry.Actor === "admin")).toBe(true);
		expect((await reporter.http("GET", "/AuditLog")).status).toBe(403);
	});

	test("Cloak hides the reported user from other users' lists; the audit log never holds a password", async () => {
		const made = (await report(reporter, "User", author.userId, "impersonation")).body;
		expect((await asAdmin("POST", `/Reports/${made.Id}/Resolve`, { Action: "Cloak" })).status).toBe(200);
		expect((await asAdmin("GET", `/Users/${author.userId}`)).body.Cloaked).toBe(true);
		const members = (await reporter.http<Records>("GET", "/Users?Limit=1000")).body.map(u => u.Id);
		expect(members).not.toContain(author.userId);

		const secret = "an admin-set password";
		const reset = await asAdmin("PUT", `/Internal/Users/${bystander.userId}`, {
			FirstName: "Re",
			LastName: "Porter",
			Password: secret,
		});
		expect(reset.status).toBe(200);
		const log = await asAdmin("GET", "/AuditLog");
		expect(log.text).toContain("UpdateUserInternal");
		expect(log.text).not.toContain(secret);
	});

	test("Dismiss leaves the subject as it was", async () => {
		const fine = await post();
		const made = (await report(reporter, "Post", fine.Id)).body;
		const dismissed = await asAdmin("POST", `/Reports/${made.Id}/Resolve`, { Action: "Dismiss" });
		expect(dismissed.body.Status).toBe("Dismissed");
		expect((await reporter.http("GET", `/Posts/${fine.Id}`)).status).toBe(200);
	});
});
