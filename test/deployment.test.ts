import fs from "node:fs";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { serviceFactories } from "../plaza";
import { owaspCost } from "../shared/passwords";

/**
 * Docker cannot run here, so the deployment files are checked by parsing them: they must stay in
 * step with the code (the same variables, services and ports).
 */
const root = path.resolve(__dirname, "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Every environment variable the configuration reads. */
const knownVariables = new Set([...read("shared/config.ts").matchAll(/env\.([A-Z_]+)/g)].map(m => m[1]));
const domains = Object.keys(serviceFactories);
/**
 * The image every Plaza process runs: package.json's version, built and loaded by the operator (never `latest`, never
 * pulled).
 */
const plazaImage = `plaza:${(JSON.parse(read("package.json")) as { version: string }).version}`;
/**
 * How long a stopping process takes: the registry's stopDelay (leaving the cluster) and the gateway's drain, read from
 * the code.
 */
const stopDelayMs = Number(read("shared/broker-options.ts").match(/stopDelay: config\.transporter \? (\d+)/)?.[1]);
const drainMs = Number(
	read("gateway/http-gateway.ts")
		.match(/const drainMs = ([\d_]+);/)?.[1]
		.replace(/_/g, ""),
);
/** The user the image runs as: the node image's `node`, uid 1000. */
const imageUser = read("Dockerfile").match(/^USER (\S+)$/m)?.[1];

type Yaml = Record<string, unknown>;
const get = (value: unknown, ...keys: Array<string | number>): unknown =>
	keys.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);

/**
 * The deployment files: every one runs on PostgreSQL, and none names MongoDB (MONGO_URI is the operator's choice,
 * README "Deployment").
 */
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
	expect(deploymentFiles).toEqual(
		expect.arrayContaining(["docker-compose.yml", "docker-compose.embedded.yml", "k8s/postgres.yaml"]),
	);
	expect(deploymentFiles).not.toContain("docker-compose.postgres.yml");
	expect(deploymentFiles).not.toContain("k8s/mongo.yaml");
	// Every key and string value of every document (comments may still say why MongoDB is absent).
	const mentionsOfMongo = (value: unknown, at: string): string[] => {
		if (typeof value === "string") return /MONGO_URI|mongodb:|^mongo(:|$)/i.test(value) ? [at] : [];
		if (Array.isArray(value)) return value.flatMap((v, i) => mentionsOfMongo(v, `${at}[${i}]`));
		if (value && typeof value === "object")
			return Object.entries(value).flatMap(([k, v]) => [
				...mentionsOfMongo(k, `${at}.${k}`),
				...mentionsOfMongo(v, `${at}.${k}`),
			]);
		return [];
	};
	const found = deploymentFiles.flatMap(file =>
		parseAllDocuments(read(file), { merge: true }).flatMap((d, i) => mentionsOfMongo(d.toJS(), `${file}#${i}`)),
	);
	expect(found).toEqual([]);
});

describe("docker compose files", () => {
	const compose = parse(read("docker-compose.yml"), { merge: true }) as Yaml;
	const services = compose.services as Record<string, Yaml>;
	const plazaServices = Object.entries(services).filter(([, s]) => s.image === plazaImage);

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
		const envs = files.flatMap(file =>
			Object.values(file.services as Record<string, Yaml>).map(s => (s.environment ?? {}) as Record<string, string>),
		);
		for (const env of envs) {
			for (const [name, value] of Object.entries(env)) {
				if (secretName.test(name))
					expect([name, value]).toEqual([name, expect.stringMatching(/^\$\{[A-Z_]+(:\?[^}]+|:-)\}$/)]);
				// Credentials inside URLs too (TRANSPORTER, DATABASE_URL).
				const [, password] = String(value).match(/^\w+:\/\/[^:/@]+:([^@]*)@/) ?? [];
				if (password !== undefined)
					expect([name, password]).toEqual([name, expect.stringMatching(/^\$\{[A-Z_]+:\?[^}]+\}$/)]);
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

	test("valid for docker compose v2 (no top-level version); Plaza's image versioned, read-only, without capabilities, stopped after its drain", () => {
		const embedded = parse(read("docker-compose.embedded.yml")) as Yaml;
		expect([compose.version, embedded.version]).toEqual([undefined, undefined]);
		const plazaContainers = [...plazaServices.map(([, s]) => s), get(embedded, "services", "plaza") as Yaml];
		expect(plazaContainers).toHaveLength(domains.length + 1);
		for (const service of plazaContainers) {
			expect([service.image, service.read_only, service.tmpfs, service.cap_drop, service.security_opt]).toEqual([
				plazaImage,
				true,
				["/tmp"],
				["ALL"],
				["no-new-privileges:true"],
			]);
		}
		for (const [, service] of plazaServices)
			expect(parseInt(String(service.stop_grace_period), 10) * 1000).toBeGreaterThan(drainMs + stopDelayMs);
		// Third-party images pinned to a version too.
		expect([services.nats.image, services.postgres.image]).toEqual(["nats:2.10", "postgres:16"]);
	});

	test("the embedded compose file runs one container with a data volume", () => {
		const embedded = parse(read("docker-compose.embedded.yml")) as Yaml;
		expect(Object.keys(embedded.services as Yaml)).toEqual(["plaza"]);
		const env = get(embedded, "services", "plaza", "environment") as Record<string, string>;
		expect(Object.keys(env).filter(k => !knownVariables.has(k))).toEqual([]);
		expect([env.MONGO_URI, env.DATABASE_URL, env.TRANSPORTER]).toEqual([undefined, undefined, undefined]);
		expect(get(embedded, "services", "plaza", "volumes")).toEqual([
			expect.stringMatching(new RegExp(`^[\\w-]+:${env.DATA_DIR}$`)),
		]);
		expect(Object.keys(embedded.volumes as Yaml)).toEqual([
			String(get(embedded, "services", "plaza", "volumes", 0)).split(":")[0],
		]);
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
		for (const d of documents)
			expect([typeof d.apiVersion, typeof d.kind, typeof get(d, "metadata", "name")]).toEqual([
				"string",
				"string",
				"string",
			]);
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
			const probePort = (container.ports as Array<{ name: string; containerPort: number }>).find(
				p => p.name === "probes",
			)?.containerPort;
			expect(String(probePort)).toBe(config.PROBE_PORT);
			// /live answers before the broker has started: only /ready says the process serves.
			expect(get(container, "startupProbe", "httpGet")).toEqual({ path: "/ready", port: "probes" });
			expect(get(container, "readinessProbe", "httpGet")).toEqual({ path: "/ready", port: "probes" });
			expect(get(container, "livenessProbe", "httpGet")).toEqual({ path: "/live", port: "probes" });
			expect(get(container, "resources", "limits", "memory")).toBeDefined();
			expect(get(container, "resources", "limits", "cpu")).toBeDefined();
		}
	});

	/**
	 * The keys of plaza-secrets and their values, as config.yaml's `kubectl create secret` documents them (the Secret
	 * itself is not shipped).
	 */
	const documentedSecret = Object.fromEntries(
		[...read("k8s/config.yaml").matchAll(/--from-literal=([A-Z_]+)="([^"]*)"/g)].map(m => [m[1], m[2]]),
	);

	test("configuration in a ConfigMap with the code's variable names, secrets in a Secret not shipped; the gateway's Service on its port", () => {
		const config = named("ConfigMap", "plaza-config")!.data as Record<string, string>;
		// NATS_PASSWORD and POSTGRES_PASSWORD are the servers' own (nats.yaml, postgres.yaml), not variables Plaza reads.
		expect(
			[...Object.keys(config), ...Object.keys(documentedSecret)].filter(
				k => !knownVariables.has(k) && k !== "POSTGRES_PASSWORD" && k !== "NATS_PASSWORD",
			),
		).toEqual([]);
		expect(Object.keys(documentedSecret)).toEqual(
			expect.arrayContaining([
				"ADMIN_API_KEY",
				"CLUSTER_SECRET",
				"NATS_PASSWORD",
				"TRANSPORTER",
				"POSTGRES_PASSWORD",
				"DATABASE_URL",
			]),
		);
		expect(documentedSecret.TRANSPORTER).toBe(
			`nats://plaza:$NATS_PASSWORD@nats:${String(get(named("Service", "nats"), "spec", "ports", 0, "port"))}`,
		);
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
			expect(Object.keys(data).filter(k => secretName.test(k) || k === "TRANSPORTER" || k === "DATABASE_URL")).toEqual(
				[],
			);
			// No credentials in URLs, nor a password in a config file (only references to the environment).
			expect(
				Object.values(data).filter(v => /:\/\/[^:/@\s]+:[^@\s]+@/.test(v) || /password:\s*(?!\$)\S/.test(v)),
			).toEqual([]);
		}
		const containers = [...ofKind("Deployment"), ...ofKind("StatefulSet")].flatMap(
			d => get(d, "spec", "template", "spec", "containers") as Yaml[],
		);
		const env = containers.flatMap(
			c =>
				(c.env ?? []) as Array<{
					name: string;
					value?: string;
					valueFrom?: { secretKeyRef?: { name: string; key: string } };
				}>,
		);
		expect(env.filter(e => secretName.test(e.name) && e.value !== undefined)).toEqual([]);
		const refs = env.flatMap(e => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : []));
		expect(refs.length).toBeGreaterThan(0);
		for (const ref of refs)
			expect([ref.name, Object.keys(documentedSecret)]).toEqual(["plaza-secrets", expect.arrayContaining([ref.key])]);
		// A known placeholder in the instructions would be copied as it is.
		expect(Object.values(documentedSecret).filter(v => !v.includes("$"))).toEqual([]);
	});

	test("NATS wants its user and password (from the Secret); every Plaza process gets TRANSPORTER with them and CLUSTER_SECRET from the same Secret", () => {
		expect(natsAuthorization(String((named("ConfigMap", "nats-config")!.data as Yaml)["nats.conf"]))).toEqual({
			user: "plaza",
			password: "$NATS_PASSWORD",
		});
		const nats = get(named("Deployment", "nats"), "spec", "template", "spec", "containers", 0) as Yaml;
		expect(
			(nats.env as Array<{ name: string; valueFrom?: unknown }>).find(e => e.name === "NATS_PASSWORD")?.valueFrom,
		).toEqual({ secretKeyRef: { name: "plaza-secrets", key: "NATS_PASSWORD" } });
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
		expect(env.find(e => e.name === "POSTGRES_PASSWORD")?.valueFrom).toEqual({
			secretKeyRef: { name: "plaza-secrets", key: "POSTGRES_PASSWORD" },
		});
		expect([env.find(e => e.name === "POSTGRES_USER")?.value, env.find(e => e.name === "POSTGRES_DB")?.value]).toEqual([
			"plaza",
			"plaza",
		]);
		const pgdata = env.find(e => e.name === "PGDATA")?.value;
		const mount = get(container, "volumeMounts", 0) as { name: string; mountPath: string };
		expect(pgdata?.startsWith(`${mount.mountPath}/`)).toBe(true);
		expect(get(statefulSet, "spec", "volumeClaimTemplates", 0, "metadata", "name")).toBe(mount.name);
		expect(
			get(statefulSet, "spec", "volumeClaimTemplates", 0, "spec", "resources", "requests", "storage"),
		).toBeDefined();

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

	/** Every workload's pod template, with its kind and name. */
	const workloads = [...ofKind("Deployment"), ...ofKind("StatefulSet")].map(w => ({
		name: `${String(w.kind)}/${String(get(w, "metadata", "name"))}`,
		workload: w,
		pod: get(w, "spec", "template", "spec") as Yaml,
		labels: get(w, "spec", "template", "metadata", "labels") as Record<string, string>,
	}));
	const containersOf = (pod: Yaml) => pod.containers as Yaml[];
	const plazaPods = workloads.filter(w => containersOf(w.pod).some(c => String(c.image).startsWith("plaza:")));

	test("images versioned: Plaza's is package.json's version, loaded into the cluster, never pulled; the others pinned", () => {
		expect(plazaPods.map(w => w.name).sort()).toEqual(domains.map(d => `Deployment/plaza-${d}`).sort());
		for (const { pod } of plazaPods)
			for (const c of containersOf(pod)) expect([c.image, c.imagePullPolicy]).toEqual([plazaImage, "IfNotPresent"]);
		for (const { pod } of workloads)
			for (const c of containersOf(pod)) expect(String(c.image)).toMatch(/^[\w./-]+:(?!latest$)[\w.-]+$/);
	});

	/**
	 * The fewest replicas a Deployment runs: its HorizontalPodAutoscaler's minReplicas if one targets it (then it sets
	 * none itself), else its own; 1 when unset.
	 */
	const replicaFloor = (deployment: Yaml): number => {
		const name = get(deployment, "metadata", "name");
		const hpa = ofKind("HorizontalPodAutoscaler").find(
			h =>
				get(h, "spec", "scaleTargetRef", "kind") === "Deployment" && get(h, "spec", "scaleTargetRef", "name") === name,
		);
		// A replicas field beside an autoscaler would reset its count at every `kubectl apply`.
		if (hpa) expect([name, get(deployment, "spec", "replicas")]).toEqual([name, undefined]);
		const floor = hpa ? get(hpa, "spec", "minReplicas") : get(deployment, "spec", "replicas");
		return Number(floor ?? 1);
	};

	test("a PodDisruptionBudget for every Deployment with more than one replica, which leaves one serving", () => {
		const replicated = ofKind("Deployment").filter(d => replicaFloor(d) > 1);
		expect(replicated.map(d => get(d, "metadata", "name")).sort()).toEqual(["plaza-gateway", "plaza-posts"]);
		for (const deployment of replicated) {
			const selector = get(deployment, "spec", "selector", "matchLabels");
			const budgets = ofKind("PodDisruptionBudget").filter(
				b => JSON.stringify(get(b, "spec", "selector", "matchLabels")) === JSON.stringify(selector),
			);
			expect(budgets).toHaveLength(1);
			expect(budgets[0].apiVersion).toBe("policy/v1");
			const minAvailable = Number(get(budgets[0], "spec", "minAvailable"));
			expect(minAvailable).toBeGreaterThanOrEqual(1);
			expect(minAvailable).toBeLessThan(replicaFloor(deployment));
		}
	});

	describe("NetworkPolicies", () => {
		type Selector = { matchLabels?: Record<string, string>; matchExpressions?: unknown };
		type Peer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: unknown };
		type Rule = { from?: Peer[]; ports?: Array<{ port: number | string; protocol?: string }> };
		const policies = ofKind("NetworkPolicy");
		const selects = (selector: Selector, labels: Record<string, string>) =>
			Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
		/** The ingress rules that let traffic in to a workload's pods on a port (a number or its name). */
		const rulesAdmitting = (workload: (typeof workloads)[number], port: number) => {
			const names = containersOf(workload.pod).flatMap(c =>
				((c.ports ?? []) as Array<{ name: string; containerPort: number }>)
					.filter(p => p.containerPort === port)
					.map(p => p.name),
			);
			return policies
				.filter(p => selects(get(p, "spec", "podSelector") as Selector, workload.labels))
				.flatMap(p => (get(p, "spec", "ingress") ?? []) as Rule[])
				.filter(rule => !rule.ports || rule.ports.some(p => p.port === port || names.includes(String(p.port))));
		};
		const workload = (name: string) => workloads.find(w => w.name === name)!;
		/** A peer that is exactly Plaza's processes of this namespace (no namespaceSelector, no addresses). */
		const isPlazaPeer = (peer: Peer) =>
			Object.keys(peer).join() === "podSelector" &&
			plazaPods.every(w => selects(peer.podSelector!, w.labels)) &&
			workloads.filter(w => !plazaPods.includes(w)).every(w => !selects(peer.podSelector!, w.labels));

		test("selectors by labels only, Ingress types declared; ingress denied by default in the namespace", () => {
			expect(policies.every(p => p.apiVersion === "networking.k8s.io/v1")).toBe(true);
			expect(JSON.stringify(policies)).not.toContain("matchExpressions");
			for (const p of policies) expect(get(p, "spec", "policyTypes")).toEqual(["Ingress"]);
			const denyAll = policies.filter(
				p => JSON.stringify(get(p, "spec", "podSelector")) === "{}" && get(p, "spec", "ingress") === undefined,
			);
			expect(denyAll).toHaveLength(1);
		});

		test("the gateway's HTTP port is open to anyone; nothing else is", () => {
			const gateway = workload("Deployment/plaza-gateway");
			const http = ((containersOf(gateway.pod)[0].ports ?? []) as Array<{ name: string; containerPort: number }>).find(
				p => p.name === "http",
			)!.containerPort;
			expect(rulesAdmitting(gateway, http).filter(rule => rule.from === undefined)).toHaveLength(1);
			// Open to any source nowhere else: every other rule names who may come in.
			const openRules = policies.flatMap(p =>
				((get(p, "spec", "ingress") ?? []) as Rule[])
					.filter(rule => rule.from === undefined)
					.map(rule => [get(p, "spec", "podSelector"), rule.ports]),
			);
			expect(openRules).toEqual([[{ matchLabels: { app: "plaza-gateway" } }, [{ protocol: "TCP", port: http }]]]);
		});

		test("the probe port (/metrics) only from the monitoring namespace's Prometheus, on every Plaza pod", () => {
			const config = named("ConfigMap", "plaza-config")!.data as Record<string, string>;
			for (const w of plazaPods) {
				const rules = rulesAdmitting(w, Number(config.PROBE_PORT));
				expect(rules.length).toBeGreaterThan(0);
				// One peer with both selectors: pods of that namespace AND with that label (two peers would admit either).
				const allowed = [
					{
						namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } },
						podSelector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } },
					},
				].map(peer => JSON.stringify(peer));
				const peers = rules.flatMap(rule => rule.from ?? [{ ipBlock: "anyone" }]).map(peer => JSON.stringify(peer));
				expect([w.name, peers.filter(peer => !allowed.includes(peer))]).toEqual([w.name, []]);
			}
		});

		test("NATS and PostgreSQL only from Plaza's processes, and only on their client ports", () => {
			for (const [name, port, otherPorts] of [
				["Deployment/nats", 4222, [8222]],
				["StatefulSet/postgres", 5432, []],
			] as const) {
				const rules = rulesAdmitting(workload(name), port);
				expect(rules.length).toBeGreaterThan(0);
				for (const rule of rules) expect([name, rule.from?.every(isPlazaPeer)]).toEqual([name, true]);
				for (const other of otherPorts)
					expect([name, other, rulesAdmitting(workload(name), other)]).toEqual([name, other, []]);
			}
		});
	});

	test("every PostgreSQL pool fits the server's max_connections at the autoscalers' maximum and a rollout's surge", () => {
		const poolSize = Number((named("ConfigMap", "plaza-config")!.data as Record<string, string>).DATABASE_POOL_SIZE);
		expect(poolSize).toBeGreaterThan(0);
		const args = get(named("StatefulSet", "postgres"), "spec", "template", "spec", "containers", 0, "args") as string[];
		const maxConnections = Number(args[args.indexOf("-c") + 1].match(/^max_connections=(\d+)$/)?.[1]);
		// The gateway keeps no data, so it opens no pool; a rollout adds maxSurge (Kubernetes' default: 25 %, rounded up)
		// pods.
		const processes = domains
			.filter(name => name !== "gateway")
			.map(name => {
				const autoscaler = ofKind("HorizontalPodAutoscaler").find(
					h => get(h, "spec", "scaleTargetRef", "name") === `plaza-${name}`,
				);
				const most = Number(
					get(autoscaler, "spec", "maxReplicas") ?? get(named("Deployment", `plaza-${name}`), "spec", "replicas"),
				);
				return most + Math.ceil(most / 4);
			})
			.reduce((sum, n) => sum + n, 0);
		const superuserReserved = 3;
		expect(processes * poolSize).toBeLessThanOrEqual(maxConnections - superuserReserved);
	});

	/** A quantity of memory in MiB (Mi or Gi). */
	const mebibytes = (quantity: unknown) => {
		const [, amount, unit] = String(quantity).match(/^(\d+)(Mi|Gi)$/) ?? [];
		return Number(amount) * (unit === "Gi" ? 1024 : 1);
	};

	test("every container non-root, read-only, without privileges or capabilities, under seccomp; /tmp an emptyDir; requests and limits", () => {
		expect(imageUser).toMatch(/^(node|1000)(:1000)?$/);
		for (const { name, pod } of workloads) {
			expect([name, pod.automountServiceAccountToken]).toEqual([name, false]);
			const volumes = (pod.volumes ?? []) as Array<{ name: string; emptyDir?: unknown }>;
			for (const container of containersOf(pod)) {
				const security = { ...(pod.securityContext as Yaml | undefined), ...(container.securityContext as Yaml) };
				expect([name, security]).toEqual([
					name,
					expect.objectContaining({
						runAsNonRoot: true,
						runAsUser: expect.any(Number),
						allowPrivilegeEscalation: false,
						readOnlyRootFilesystem: true,
						capabilities: { drop: ["ALL"] },
						seccompProfile: { type: "RuntimeDefault" },
					}),
				]);
				expect(security.runAsUser).toBeGreaterThan(0);
				const tmp = ((container.volumeMounts ?? []) as Array<{ name: string; mountPath: string }>).find(
					m => m.mountPath === "/tmp",
				);
				expect([name, volumes.find(v => v.name === tmp?.name)?.emptyDir]).toEqual([name, expect.anything()]);
				for (const kind of ["requests", "limits"])
					for (const resource of ["cpu", "memory"])
						expect([name, kind, resource, get(container, "resources", kind, resource)]).toEqual([
							name,
							kind,
							resource,
							expect.anything(),
						]);
				expect(mebibytes(get(container, "resources", "limits", "memory"))).toBeGreaterThanOrEqual(
					mebibytes(get(container, "resources", "requests", "memory")),
				);
			}
		}
		// Plaza's processes as the image's user, writing nowhere but emptyDirs (DATA_DIR is unused on PostgreSQL).
		for (const { name, pod } of plazaPods) {
			for (const container of containersOf(pod))
				expect([name, get(container, "securityContext", "runAsUser")]).toEqual([name, 1000]);
			expect([name, ((pod.volumes ?? []) as Yaml[]).filter(v => !v.emptyDir)]).toEqual([name, []]);
		}
	});

	test("users has the memory for scrypt at OWASP's cost: 128 MiB per hash, four at once, above a process's own", () => {
		const hashMebibytes = (128 * owaspCost.r * owaspCost.N) / 2 ** 20;
		expect(hashMebibytes).toBe(128);
		// libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise) runs the hashes.
		const atOnce = 4;
		const container = (name: string) =>
			get(named("Deployment", `plaza-${name}`), "spec", "template", "spec", "containers", 0);
		const processOwn = mebibytes(get(container("graph"), "resources", "requests", "memory"));
		expect(mebibytes(get(container("users"), "resources", "requests", "memory"))).toBeGreaterThanOrEqual(
			atOnce * hashMebibytes + processOwn,
		);
		expect(mebibytes(get(container("users"), "resources", "limits", "memory"))).toBeGreaterThanOrEqual(
			atOnce * hashMebibytes + 2 * processOwn,
		);
	});

	test("a stopping process has the time to leave the cluster and drain; the gateway waits for its endpoints to drop it first", () => {
		expect([stopDelayMs, drainMs]).toEqual([expect.any(Number), expect.any(Number)]);
		expect(drainMs).toBeGreaterThan(0);
		for (const { name, pod } of plazaPods)
			expect([name, Number(pod.terminationGracePeriodSeconds) * 1000 > drainMs + stopDelayMs]).toEqual([name, true]);
		const gateway = get(named("Deployment", "plaza-gateway"), "spec", "template", "spec") as Yaml;
		const command = get(gateway, "containers", 0, "lifecycle", "preStop", "exec", "command") as string[];
		expect(command[0]).toBe("sleep");
		const sleepSeconds = Number(command[1]);
		expect(sleepSeconds).toBeGreaterThanOrEqual(3);
		expect(Number(gateway.terminationGracePeriodSeconds) * 1000).toBeGreaterThan(
			sleepSeconds * 1000 + drainMs + stopDelayMs,
		);
	});
});

test("the Dockerfile runs the built entry point and exposes the gateway and probe ports", () => {
	const dockerfile = read("Dockerfile");
	// The flag keeps AsyncLocalStorage (idempotent writes) off promise hooks on Node 22 (shared/idempotency/writes.ts).
	expect(dockerfile).toMatch(/CMD \["node", "--experimental-async-context-frame", "dist\/main\.js"\]/);
	expect(dockerfile).toMatch(/EXPOSE 3000 9090/);
	// The last USER is the one that runs: the node image's `node` (uid 1000), which k8s/ names by number.
	expect([...dockerfile.matchAll(/^USER (\S+)$/gm)].map(m => m[1])).toEqual([imageUser]);
});
