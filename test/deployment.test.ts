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

/** The deployment files: MongoDB is named in none of them until its repositories are written (a process with MONGO_URI set refuses to start). */
const deploymentFiles = [
	...fs.readdirSync(root).filter(f => /^docker-compose.*\.ya?ml$/.test(f)),
	...fs
		.readdirSync(path.join(root, "k8s"))
		.filter(f => f.endsWith(".yaml"))
		.map(f => `k8s/${f}`),
];
/** A PostgreSQL URL to the database at host `postgres`, port 5432; its password is the first group. */
const postgresUrl = /^postgres:\/\/plaza:([^@]*)@postgres:5432\/plaza$/;
/** Names of variables that hold secrets. */
const secretName = /PASSWORD|SECRET|API_KEY/;
/** A compose value that makes `docker compose` refuse to start without the variable. */
const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
/** The user and password of a nats.conf's authorization block. */
const natsAuthorization = (conf: string) => {
	const block = conf.match(/authorization\s*\{([^}]*)\}/)?.[1] ?? "";
	return { user: block.match(/\buser:\s*(\S+)/)?.[1], password: block.match(/\bpassword:\s*(\S+)/)?.[1] };
};

test("no deployment file sets MONGO_URI or runs MongoDB; PostgreSQL is the only separate store", () => {
	expect(deploymentFiles).toEqual(expect.arrayContaining(["docker-compose.yml", "docker-compose.embedded.yml", "k8s/postgres.yaml"]));
	expect(deploymentFiles).not.toContain("docker-compose.postgres.yml");
	expect(deploymentFiles).not.toContain("k8s/mongo.yaml");
	// Every key and string value of every document (comments may still say why MongoDB is absent).
	const mentionsOfMongo = (value: unknown, at: string): string[] => {
		if (typeof value === "string") return /MONGO_URI|mongodb:|^mongo(:|$)/i.test(value) ? [at] : [];
		if (Array.isArray(value)) return value.flatMap((v, i) => mentionsOfMongo(v, `${at}[${i}]`));
		if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [...mentionsOfMongo(k, `${at}.${k}`), ...mentionsOfMongo(v, `${at}.${k}`)]);
		return [];
	};
	const found = deploymentFiles.flatMap(file => parseAllDocuments(read(file), { merge: true }).flatMap((d, i) => mentionsOfMongo(d.toJS(), `${file}#${i}`)));
	expect(found).toEqual([]);
});

describe("docker compose files", () => {
	const compose = parse(read("docker-compose.yml"), { merge: true }) as Yaml;
	const services = compose.services as Record<string, Yaml>;
	const plazaServices = Object.entries(services).filter(([, s]) => s.image === "plaza:latest");

	test("NATS, PostgreSQL, the gateway and every service, each in a container of its own", () => {
		expect(Object.keys(services).sort()).toEqual(["nats", "postgres", ...domains].sort());
		for (const [name, service] of plazaServices) expect(get(service, "environment", "SERVICES")).toBe(name);
		expect(get(services.posts, "deploy", "replicas")).toBe(2);
	});

	test("the same variables as the code, the same ports, NATS at its service name", () => {
		for (const [, service] of plazaServices) {
			const env = service.environment as Record<string, string>;
			expect(Object.keys(env).filter(k => !knownVariables.has(k))).toEqual([]);
			expect(env.TRANSPORTER).toMatch(/^nats:\/\/plaza:[^@]+@nats:4222$/);
			expect(String(get(service, "healthcheck", "test", 3))).toContain(`:${env.PROBE_PORT}/ready`);
		}
		const gateway = services.gateway.environment as Record<string, string>;
		expect(services.gateway.ports).toEqual([`${gateway.PORT}:${gateway.PORT}`]);
		expect(read("deploy/nats.conf")).toMatch(/max_payload: 16MB/);
	});

	test("NATS wants a user and password, which every service has in TRANSPORTER, beside CLUSTER_SECRET, all required from the environment", () => {
		expect(services.nats.command).toEqual(["-c", "/etc/nats/nats.conf"]);
		expect(services.nats.volumes).toEqual(["./deploy/nats.conf:/etc/nats/nats.conf:ro"]);
		expect(natsAuthorization(read("deploy/nats.conf"))).toEqual({ user: "plaza", password: "$NATS_PASSWORD" });
		expect(get(services.nats, "environment", "NATS_PASSWORD")).toMatch(required("NATS_PASSWORD"));
		for (const [, service] of Object.entries(services)) {
			const env = (service.environment ?? {}) as Record<string, string>;
			if (!env.TRANSPORTER) continue;
			const [, password] = env.TRANSPORTER.match(/^nats:\/\/plaza:([^@]+)@nats:4222$/) ?? [];
			expect(password).toMatch(required("NATS_PASSWORD"));
			expect(env.CLUSTER_SECRET).toMatch(required("CLUSTER_SECRET"));
		}
	});

	test("no secret value ships: every password, key and secret is required from the environment (or optional and empty)", () => {
		const files = [compose, parse(read("docker-compose.embedded.yml")) as Yaml];
		const envs = files.flatMap(file => Object.values(file.services as Record<string, Yaml>).map(s => (s.environment ?? {}) as Record<string, string>));
		for (const env of envs) {
			for (const [name, value] of Object.entries(env)) {
				if (secretName.test(name)) expect([name, value]).toEqual([name, expect.stringMatching(/^\$\{[A-Z_]+(:\?[^}]+|:-)\}$/)]);
				// Credentials inside URLs too (TRANSPORTER, DATABASE_URL).
				const [, password] = String(value).match(/^\w+:\/\/[^:/@]+:([^@]*)@/) ?? [];
				if (password !== undefined) expect([name, password]).toEqual([name, expect.stringMatching(/^\$\{[A-Z_]+:\?[^}]+\}$/)]);
			}
		}
	});

	test("every service on PostgreSQL 16 (DATABASE_URL, its user, password and database), started once it is ready", () => {
		const postgres = services.postgres;
		expect(postgres.image).toBe("postgres:16");
		const postgresEnv = postgres.environment as Record<string, string>;
		expect(String(get(postgres, "healthcheck", "test"))).toContain("pg_isready");
		expect(String(get(postgres, "volumes", 0))).toMatch(/^[\w-]+:\/var\/lib\/postgresql\/data$/);
		expect(Object.keys(compose.volumes as Yaml)).toContain(String(get(postgres, "volumes", 0)).split(":")[0]);
		expect(plazaServices.map(([name]) => name).sort()).toEqual([...domains].sort());
		for (const [, service] of plazaServices) {
			const env = service.environment as Record<string, string>;
			expect(env.MONGO_URI).toBeUndefined();
			expect(env.DATA_DIR).toBeUndefined();
			const [, password] = env.DATABASE_URL?.match(postgresUrl) ?? [];
			expect(password).toBe(postgresEnv.POSTGRES_PASSWORD);
			expect([postgresEnv.POSTGRES_USER, postgresEnv.POSTGRES_DB]).toEqual(["plaza", "plaza"]);
			expect(get(service, "depends_on", "postgres", "condition")).toBe("service_healthy");
			expect(get(service, "depends_on", "nats", "condition")).toBe("service_started");
		}
	});

	test("the embedded compose file runs one container with a data volume", () => {
		const embedded = parse(read("docker-compose.embedded.yml")) as Yaml;
		expect(Object.keys(embedded.services as Yaml)).toEqual(["plaza"]);
		const env = get(embedded, "services", "plaza", "environment") as Record<string, string>;
		expect(Object.keys(env).filter(k => !knownVariables.has(k))).toEqual([]);
		expect([env.MONGO_URI, env.DATABASE_URL, env.TRANSPORTER]).toEqual([undefined, undefined, undefined]);
		expect(get(embedded, "services", "plaza", "volumes")).toEqual([expect.stringMatching(new RegExp(`^[\\w-]+:${env.DATA_DIR}$`))]);
		expect(Object.keys(embedded.volumes as Yaml)).toEqual([String(get(embedded, "services", "plaza", "volumes", 0)).split(":")[0]]);
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

	/** The keys of plaza-secrets and their values, as config.yaml's `kubectl create secret` documents them (the Secret itself is not shipped). */
	const documentedSecret = Object.fromEntries([...read("k8s/config.yaml").matchAll(/--from-literal=([A-Z_]+)="([^"]*)"/g)].map(m => [m[1], m[2]]));

	test("configuration in a ConfigMap with the code's variable names, secrets in a Secret not shipped; the gateway's Service on its port", () => {
		const config = named("ConfigMap", "plaza-config")!.data as Record<string, string>;
		// NATS_PASSWORD and POSTGRES_PASSWORD are the servers' own (nats.yaml, postgres.yaml), not variables Plaza reads.
		expect([...Object.keys(config), ...Object.keys(documentedSecret)].filter(k => !knownVariables.has(k) && k !== "POSTGRES_PASSWORD" && k !== "NATS_PASSWORD")).toEqual([]);
		expect(Object.keys(documentedSecret)).toEqual(expect.arrayContaining(["ADMIN_API_KEY", "CLUSTER_SECRET", "NATS_PASSWORD", "TRANSPORTER", "POSTGRES_PASSWORD", "DATABASE_URL"]));
		expect(documentedSecret.TRANSPORTER).toBe(`nats://plaza:$NATS_PASSWORD@nats:${get(named("Service", "nats"), "spec", "ports", 0, "port")}`);
		const natsConf = String((named("ConfigMap", "nats-config")!.data as Yaml)["nats.conf"]);
		expect(natsConf).toMatch(/max_payload: 16MB/);
		// No proxy ships in front of the gateway: trusting one would let every client write its own X-Forwarded-For.
		expect(config.TRUST_PROXY).toBeUndefined();

		const gateway = get(named("Deployment", "plaza-gateway"), "spec", "template", "spec", "containers", 0) as Yaml;
		const port = (gateway.env as Array<{ name: string; value?: string }>).find(e => e.name === "PORT")?.value;
		const http = (gateway.ports as Array<{ name: string; containerPort: number }>).find(p => p.name === "http");
		expect(String(http?.containerPort)).toBe(port);
		expect(get(named("Service", "plaza"), "spec", "ports", 0, "targetPort")).toBe("http");
	});

	test("no secret value ships: no Secret object, no secret in a ConfigMap or an env value; every secretKeyRef names a documented key", () => {
		expect(ofKind("Secret")).toEqual([]);
		for (const configMap of ofKind("ConfigMap")) {
			const data = (configMap.data ?? {}) as Record<string, string>;
			expect(Object.keys(data).filter(k => secretName.test(k) || k === "TRANSPORTER" || k === "DATABASE_URL")).toEqual([]);
			// No credentials in URLs, nor a password in a config file (only references to the environment).
			expect(Object.values(data).filter(v => /:\/\/[^:/@\s]+:[^@\s]+@/.test(v) || /password:\s*(?!\$)\S/.test(v))).toEqual([]);
		}
		const containers = [...ofKind("Deployment"), ...ofKind("StatefulSet")].flatMap(d => get(d, "spec", "template", "spec", "containers") as Yaml[]);
		const env = containers.flatMap(c => (c.env ?? []) as Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>);
		expect(env.filter(e => secretName.test(e.name) && e.value !== undefined)).toEqual([]);
		const refs = env.flatMap(e => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : []));
		expect(refs.length).toBeGreaterThan(0);
		for (const ref of refs) expect([ref.name, Object.keys(documentedSecret)]).toEqual(["plaza-secrets", expect.arrayContaining([ref.key])]);
		// A known placeholder in the instructions would be copied as it is.
		expect(Object.values(documentedSecret).filter(v => !v.includes("$"))).toEqual([]);
	});

	test("NATS wants its user and password (from the Secret); every Plaza process gets TRANSPORTER with them and CLUSTER_SECRET from the same Secret", () => {
		expect(natsAuthorization(String((named("ConfigMap", "nats-config")!.data as Yaml)["nats.conf"]))).toEqual({ user: "plaza", password: "$NATS_PASSWORD" });
		const nats = get(named("Deployment", "nats"), "spec", "template", "spec", "containers", 0) as Yaml;
		expect((nats.env as Array<{ name: string; valueFrom?: unknown }>).find(e => e.name === "NATS_PASSWORD")?.valueFrom).toEqual({ secretKeyRef: { name: "plaza-secrets", key: "NATS_PASSWORD" } });
		for (const name of domains) {
			const container = get(named("Deployment", `plaza-${name}`), "spec", "template", "spec", "containers", 0) as Yaml;
			expect(container.envFrom).toEqual(expect.arrayContaining([{ secretRef: { name: "plaza-secrets" } }]));
			const names = (container.env as Array<{ name: string }>).map(e => e.name);
			// Not overridden by a value beside the Secret.
			expect(names.filter(n => ["TRANSPORTER", "CLUSTER_SECRET", "ADMIN_API_KEY"].includes(n))).toEqual([]);
		}
	});

	test("every service reaches the PostgreSQL StatefulSet by DATABASE_URL, whose password is the database's", () => {
		const config = named("ConfigMap", "plaza-config")!.data as Record<string, string>;
		expect(config.DATABASE_URL).toBeUndefined();
		expect([config.MONGO_URI, documentedSecret.MONGO_URI]).toEqual([undefined, undefined]);
		const [, password] = documentedSecret.DATABASE_URL?.match(postgresUrl) ?? [];
		expect(password).toBe("$POSTGRES_PASSWORD");
		for (const name of domains) {
			const container = get(named("Deployment", `plaza-${name}`), "spec", "template", "spec", "containers", 0) as Yaml;
			expect(container.envFrom).toEqual(expect.arrayContaining([{ secretRef: { name: "plaza-secrets" } }]));
			const env = container.env as Array<{ name: string }>;
			expect(env.map(e => e.name).filter(k => ["DATABASE_URL", "MONGO_URI", "DATA_DIR"].includes(k))).toEqual([]);
		}

		const statefulSet = named("StatefulSet", "postgres");
		expect(get(statefulSet, "spec", "replicas")).toBe(1);
		const container = get(statefulSet, "spec", "template", "spec", "containers", 0) as Yaml;
		expect(container.image).toBe("postgres:16");
		const env = container.env as Array<{ name: string; value?: string; valueFrom?: unknown }>;
		expect(env.find(e => e.name === "POSTGRES_PASSWORD")?.valueFrom).toEqual({ secretKeyRef: { name: "plaza-secrets", key: "POSTGRES_PASSWORD" } });
		expect([env.find(e => e.name === "POSTGRES_USER")?.value, env.find(e => e.name === "POSTGRES_DB")?.value]).toEqual(["plaza", "plaza"]);
		const pgdata = env.find(e => e.name === "PGDATA")?.value;
		const mount = get(container, "volumeMounts", 0) as { name: string; mountPath: string };
		expect(pgdata?.startsWith(`${mount.mountPath}/`)).toBe(true);
		expect(get(statefulSet, "spec", "volumeClaimTemplates", 0, "metadata", "name")).toBe(mount.name);
		expect(get(statefulSet, "spec", "volumeClaimTemplates", 0, "spec", "resources", "requests", "storage")).toBeDefined();

		const service = named("Service", "postgres");
		expect(get(service, "spec", "selector")).toEqual(get(statefulSet, "spec", "selector", "matchLabels"));
		expect(get(service, "spec", "ports", 0, "port")).toBe(5432);
		expect(get(service, "spec", "ports", 0, "targetPort")).toBe((container.ports as Array<{ name: string }>)[0].name);
		expect(get(statefulSet, "spec", "serviceName")).toBe("postgres");
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
