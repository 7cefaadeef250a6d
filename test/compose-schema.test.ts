import fs from "node:fs";
import path from "node:path";
import Ajv2020, { type ErrorObject } from "ajv/dist/2020";
import { parse } from "yaml";

/**
 * Every docker-compose*.yml checked as `docker compose` v2 checks it: against the Compose Specification's JSON schema
 * that its loader (compose-spec/compose-go) embeds, after YAML merge keys are resolved (test/fixtures/README.md says
 * where the copy comes from). The loader interpolates `${…}` before validating; here every one sits in a string value,
 * which stays a string, so the raw values are checked. The schema forbids keys it does not name (outside `x-` ones),
 * so a typo'd key fails here as it would at `docker compose up`. A broken copy shows each check catches its mistake.
 */
const root = path.resolve(__dirname, "..");
const composeFiles = fs.readdirSync(root).filter(f => /^docker-compose.*\.ya?ml$/.test(f));
const schema = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures/compose-spec.json"), "utf8")) as object;
// The schema mixes types in one keyword (a boolean or a string that interpolation will fill); strict on all else.
const validate = new Ajv2020({ allErrors: true, strictTypes: false }).compile(schema);

/** What the schema finds wrong in a compose file's text, one line per error: where, and what. */
function problems(text: string): string[] {
	if (validate(parse(text, { merge: true }))) return [];
	return (validate.errors ?? []).map(
		(e: ErrorObject) =>
			`${e.instancePath || "/"} ${e.message ?? ""}${e.keyword === "additionalProperties" ? `: ${String(e.params.additionalProperty)}` : ""}`,
	);
}

/** A compose file's text with one exact piece replaced; the piece must be there, or the broken copy proves nothing. */
function broken(file: string, from: string, to: string): string {
	const text = fs.readFileSync(path.join(root, file), "utf8");
	expect(text).toContain(from);
	return text.replace(from, to);
}

test("both compose files are valid Compose files", () => {
	expect(composeFiles.sort()).toEqual(["docker-compose.embedded.yml", "docker-compose.yml"]);
	for (const file of composeFiles)
		expect([file, problems(fs.readFileSync(path.join(root, file), "utf8"))]).toEqual([file, []]);
});

test("a misspelled key is rejected where it lands, through the merge keys too", () => {
	expect(problems(broken("docker-compose.yml", "      replicas: 2", "      replica: 2"))).toEqual([
		"/services/posts/deploy must NOT have additional properties: replica",
	]);
	// A typo in the shared x-plaza block lands in every service that merges it.
	const plazaServices = ["gateway", "users", "graph", "posts", "venues", "systems"];
	expect(problems(broken("docker-compose.yml", "  read_only: true", "  read_onyl: true")).sort()).toEqual(
		plazaServices.map(s => `/services/${s} must NOT have additional properties: read_onyl`).sort(),
	);
	expect(problems(broken("docker-compose.embedded.yml", "    security_opt:", "    security_opts:"))).toEqual([
		"/services/plaza must NOT have additional properties: security_opts",
	]);
});

test("a value of the wrong type is rejected", () => {
	expect(problems(broken("docker-compose.embedded.yml", "cap_drop: [ALL]", "cap_drop: ALL"))).toEqual([
		"/services/plaza/cap_drop must be array",
	]);
	expect(
		problems(
			broken("docker-compose.yml", "    restart: unless-stopped\n\n  postgres:", "    restart: 3\n\n  postgres:"),
		),
	).toEqual(["/services/nats/restart must be string"]);
	expect(problems(broken("docker-compose.yml", "volumes:\n  postgres-data:\n", "volumes: [postgres-data]\n"))).toEqual([
		"/volumes must be object",
	]);
});
