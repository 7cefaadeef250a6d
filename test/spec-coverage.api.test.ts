import fs from "node:fs";
import path from "node:path";
import { catalogue } from "../shared/catalogue";
import { ErrorBody, startPlaza, TestPlaza } from "./support/plaza";

/**
 * Every operation SPEC.md names: §4.2's headings, §4.3's SOAP table, §4.4's description records, §5's sign-in and
 * sign-up.
 */
const specOperations = [
	"AllUsers",
	"UpdateUserInternal",
	"SearchPostsByTag",
	"CreateComment",
	"FindComment",
	"CreateConnection",
	"DeleteConnection",
	"CreateWorkItem",
	"UpdateVenueMember",
	"AllPostRecipients",
	"CreateAvatar",
	"CreateNetworkRecipient",
	"CreateTag",
	"CreatePostRecipient",
	"CreateSystem",
	"CreateNetworkMember",
	"CreateNetwork",
	"CreatePicture",
	"CreatePost",
	"CreateSubscription",
	"CreateServiceMap",
	"ServiceMapsDto",
	"CreateUserDevice",
	"CreateUserReservation",
	"CreateUser",
	"ConvertFromReservation",
	"CreateVenueMember",
	"Resources",
	"ResourceRequest",
	"Auth",
	"Registration",
];

/**
 * SPEC.md: the file PLAZA_SPEC names, else beside the repository (../shared/SPEC.md, as CI and this
 * machine lay it out), else /work/shared/SPEC.md. Not found is a failure: a skipped cross-check proves nothing.
 */
const specCandidates = process.env.PLAZA_SPEC
	? [process.env.PLAZA_SPEC]
	: [path.resolve(__dirname, "../../shared/SPEC.md"), "/work/shared/SPEC.md"];
const specFile = specCandidates.find(file => fs.existsSync(file));

describe("every operation SPEC.md names is reachable", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterAll(() => plaza.stop());

	test("the list agrees with SPEC.md", () => {
		if (!specFile)
			throw new Error(`SPEC.md not found (looked at ${specCandidates.join(", ")}): set PLAZA_SPEC to its path`);
		const spec = fs.readFileSync(specFile, "utf8");
		const headings = [...spec.matchAll(/^#### (\w+)$/gm)].map(m => m[1]);
		const soapTable = spec.slice(
			spec.indexOf("| Operations |"),
			spec.indexOf("The operations of the interface that follow"),
		);
		const soapRows = [...soapTable.matchAll(/^\| (\w+) \|$/gm)].map(m => m[1]).filter(name => name !== "Operations");
		expect(headings.length).toBeGreaterThan(5);
		expect(soapRows.length).toBeGreaterThan(10);
		expect(specOperations).toEqual(expect.arrayContaining([...headings, ...soapRows]));
	});

	test.each(specOperations)(
		"%s answers at POST /json/reply (an empty request: 200 or a 4xx of its own, never an unknown operation)",
		async name => {
			const reply = await plaza.admin<ErrorBody>("POST", `/json/reply/${name}`, {});
			expect(reply.status).toBeLessThan(500);
			expect(reply.body?.ResponseStatus?.Message ?? "").not.toMatch(/operation .* was not found/i);
		},
	);

	test("the catalogue declares every SPEC operation it serves, each reachable by its REST routes too", async () => {
		const declared = new Set(catalogue.map(op => op.name));
		expect(specOperations.filter(name => !declared.has(name))).toEqual([]);
		for (const op of catalogue) {
			for (const r of op.routes) {
				const url = r.path.replace(/:\w+/g, "0f8fad5bd9cb469fa16570867728950e");
				const reply = await plaza.admin<ErrorBody>(
					r.method,
					url,
					r.method === "GET" || r.method === "DELETE" ? undefined : {},
				);
				expect([r.method, url, reply.body?.ResponseStatus?.Message]).not.toEqual([r.method, url, "No such route"]);
			}
		}
	});
});
