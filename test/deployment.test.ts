import fs from "node:fs";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { serviceFactories } from "../plaza";

/**
 * Docker cannot run here, so the deployment files are checked by parsing them: they must stay in
 * step with the code (the same variables, services and ports).
 */
const root = path.resolve(__dirname, "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Every environment variable the configuration reads. */
const knownVariables = new Set([...read("shared/config.ts").matchAll(/env\.([A-Z_]+)/g)].map(m => m[1]));
const domains = Object.keys(serviceFactories);

type Yaml = Record<string, unknown>;
const get = (value: unknown, ...keys: Array<string | number>): unknown => keys.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);

describe("docker compose files", () => {
	const compose = parse(read("docker-compose.yml"), { merge: true }) as Yaml;
	const services = compose.services as Record<string, Yaml>;
	const plazaServices = Object.entries(services).filter(([, s]) => s.image === "plaza:latest");

	test("NATS, MongoDB, the gateway and every service, each in a container of its own", () => {
		expect(Object.keys(services).sort()).toEqual(["mongo", "nats", ...domains].sort());
		for (const [name, service] of plazaServices) expect(get(service, "environment", "SERVICES")).toBe(name);
		expect(get(services.posts, "deploy", "replicas")).toBe(2);
	});

	test("the same variables as the code, the same ports, NATS at its service name", () => {
		for (const [, service] of plazaServices) {
			const env = service.environment as Record<string, string>;
			expect(Object.keys(env).filter(k => !knownVariables.has(k))).toEqual([]);
			expect(env.TRANSPORTER).toBe("nats://nats:4222");
			expect(String(get(service, "healthcheck", "test", 3))).toContain(`:${env.PROBE_PORT}/ready`);
		}
		const gateway = services.gateway.environment as Record<string, string>;
		expect(services.gateway.ports).toEqual([`${gateway.PORT}:${gateway.PORT}`]);
		expect(read("deploy/nats.conf")).toMatch(/max_payload: 16MB/);
	});

	test("the PostgreSQL override points every service at PostgreSQL and empties MONGO_URI (which would win)", () => {
		const override = parse(read("docker-compose.postgres.yml"), { merge: true }) as Yaml;
		const overridden = override.services as Record<string, Yaml>;
		expect(overridden.postgres).toBeDefined();
		for (const name of domains) {
			expect(get(overridden[name], "environment", "MONGO_URI")).toBe("");
			expect(String(get(overridden[name], "environment", "DATABASE_URL"))).toMatch(/^postgres:\/\/.*@postgres:5432\//);
		}
	});

	test("the embedded compose file runs one container with a data volume", () => {
		const embedded = parse(read("docker-compose.embedded.yml")) as Yaml;
		expect(Object.keys(embedded.services as Yaml)).toEqual(["plaza"]);
		expect(Object.keys(get(embedded, "services", "plaza", "environment") as Yaml).filter(k => !knownVariables.has(k))).toEqual([]);
	});
});

describe("Kubernetes manifests", () => {
	const documents = fs
		.readdirSync(path.join(root, "k8s"))
		.filter(f => f.endsWith(".yaml"))
		.flatMap(f => parseAllDocuments(read(`k8s/${f}`)).map(d => d.toJS() as Yaml));
	const ofKind = (kind: string) => documents.filter(d => d.kind === kind);
	const named = (kind: string, name: string) => ofKind(kind).find(d => get(d, "metadata", "name") === name);

	test("every file parses to objects with an apiVersion, a kind and a name", () => {
		expect(documents.length).toBeGreaterThan(10);
		for (const d of documents) expect([typeof d.apiVersion, typeof d.kind, typeof get(d, "metadata", "name")]).toEqual(["string", "string", "string"]);
	});

	test("a Deployment per service, running it by SERVICES, with probes on the probe port and resource limits", () => {
		const config = named("ConfigMap", "plaza-config")!.data as Record<string, string>;
		for (const name of domains) {
			const deployment = named("Deployment", `plaza-${name}`);
			expect(deployment).toBeDefined();
			const container = get(deployment, "spec", "template", "spec", "containers", 0) as Yaml;
			const env = container.env as Array<{ name: string; value?: string }>;
			expect(env.find(e => e.name === "SERVICES")?.value).toBe(name);
			expect(env.map(e => e.name).filter(k => !knownVariables.has(k))).toEqual([]);
			const probePort = (container.ports as Array<{ name: string; containerPort: number }>).find(p => p.name === "probes")?.containerPort;
			expect(String(probePort)).toBe(config.PROBE_PORT);
			expect(get(container, "livenessProbe", "httpGet", "path")).toBe("/live");
			expect(get(container, "readinessProbe", "httpGet", "path")).toBe("/ready");
			expect(get(container, "resources", "limits", "memory")).toBeDefined();
			expect(get(container, "resources", "limits", "cpu")).toBeDefined();
		}
	});

	test("configuration in a ConfigMap and a Secret with the code's variable names; the gateway's Service on its port", () => {
		const config = named("ConfigMap", "plaza-config")!.data as Record<string, string>;
		const secret = named("Secret", "plaza-secrets")!.stringData as Record<string, string>;
		expect([...Object.keys(config), ...Object.keys(secret)].filter(k => !knownVariables.has(k))).toEqual([]);
		expect(secret.ADMIN_API_KEY).toBeDefined();
		expect(config.TRANSPORTER).toBe(`nats://nats:${get(named("Service", "nats"), "spec", "ports", 0, "port")}`);
		expect(String(named("ConfigMap", "nats-config")!.data && (named("ConfigMap", "nats-config")!.data as Yaml)["nats.conf"])).toMatch(/max_payload: 16MB/);

		const gateway = get(named("Deployment", "plaza-gateway"), "spec", "template", "spec", "containers", 0) as Yaml;
		const port = (gateway.env as Array<{ name: string; value?: string }>).find(e => e.name === "PORT")?.value;
		const http = (gateway.ports as Array<{ name: string; containerPort: number }>).find(p => p.name === "http");
		expect(String(http?.containerPort)).toBe(port);
		expect(get(named("Service", "plaza"), "spec", "ports", 0, "targetPort")).toBe("http");
	});

	test("a HorizontalPodAutoscaler grows the posts service", () => {
		const hpa = named("HorizontalPodAutoscaler", "plaza-posts");
		expect(get(hpa, "spec", "scaleTargetRef", "name")).toBe("plaza-posts");
		expect(Number(get(hpa, "spec", "minReplicas"))).toBeGreaterThanOrEqual(2);
	});
});

test("the Dockerfile runs the built entry point and exposes the gateway and probe ports", () => {
	const dockerfile = read("Dockerfile");
	expect(dockerfile).toMatch(/CMD \["node", "dist\/main\.js"\]/);
	expect(dockerfile).toMatch(/EXPOSE 3000 9090/);
});
