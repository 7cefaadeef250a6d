import fs from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * Every document under k8s/ checked as the cluster would: against the Kubernetes OpenAPI schema of its apiVersion
 * and kind, as the kubernetes-models package compiles them (Kubernetes 1.36.0, with the APIs that older releases
 * removed merged in), then against the API server's rules the schemas do not carry. The schemas accept fields they
 * do not name (a non-strict API server drops them silently), so every field the validator never looked at is
 * reported as well: that is how a typo'd field shows. Each check is shown to catch a broken copy of a manifest.
 */
const root = path.resolve(__dirname, "..");
const modelsDir = path.join(root, "node_modules/kubernetes-models");
// kubernetes-models is ESM only: Node's own require (which loads ES modules since Node 22.12), not Jest's CommonJS one.
const nativeRequire = process.getBuiltinModule("node:module").createRequire(__filename);

type Manifest = Record<string, unknown>;
/** A kubernetes-models class: its apiVersion and kind, and a validate() that throws the schema's errors for `this`. */
type Model = { apiVersion: string; kind: string; prototype: { validate(this: unknown): void } };
const isModel = (value: unknown): value is Model =>
	typeof value === "function" &&
	typeof (value as Partial<Model>).apiVersion === "string" &&
	typeof (value as Partial<Model>).kind === "string";

/**
 * The model of an apiVersion and kind (kubernetes-models lays them out as <apiVersion>/index.js), or undefined if none.
 */
function modelOf(apiVersion: string, kind: string): Model | undefined {
	if (!/^([a-z0-9.-]+\/)?v\d+[a-z0-9]*$/.test(apiVersion)) return undefined;
	const index = path.join(modelsDir, apiVersion, "index.js");
	if (!fs.existsSync(index)) return undefined;
	const model = (nativeRequire(index) as Record<string, unknown>)[kind];
	return isModel(model) && model.apiVersion === apiVersion && model.kind === kind ? model : undefined;
}

/** A view of a document that records the path of every field of it that is read. */
function watched(value: unknown, at: string, read: Set<string>): unknown {
	if (!value || typeof value !== "object") return value;
	return new Proxy(value, {
		get(target, key, receiver) {
			const field: unknown = Reflect.get(target, key, receiver);
			if (typeof key !== "string" || !Object.hasOwn(target, key)) return field;
			read.add(`${at}/${key}`);
			return watched(field, `${at}/${key}`, read);
		},
	});
}

/** The paths of the fields of a document that were never read (below a field never read, only that field). */
const unread = (value: unknown, at: string, read: Set<string>): string[] =>
	value && typeof value === "object"
		? Object.entries(value).flatMap(([key, field]) =>
				read.has(`${at}/${key}`) ? unread(field, `${at}/${key}`, read) : [`${at}/${key}`],
			)
		: [];

/**
 * What the Kubernetes schemas find wrong in a document: an unknown or unstable API, the schema's errors, fields it does
 * not name.
 */
function schemaProblems(document: Manifest): string[] {
	const { apiVersion, kind } = document;
	if (typeof apiVersion !== "string" || typeof kind !== "string") return ["no apiVersion or kind"];
	const model = modelOf(apiVersion, kind);
	if (!model) return [`no schema for ${kind} in ${apiVersion}`];
	// Alpha and beta APIs are off by default or removed (the schemas hold policy/v1beta1 and the like): only stable ones
	// ship.
	const problems = /^([a-z0-9.-]+\/)?v\d+$/.test(apiVersion) ? [] : [`${apiVersion} is not a stable API version`];
	const read = new Set<string>();
	try {
		model.prototype.validate.call(watched(document, "", read));
	} catch (error) {
		// The validator collects all its errors before throwing, so the fields it read are complete here too.
		const errors = (error as { errors?: Array<{ instancePath: string; message?: string }> }).errors ?? [
			{ instancePath: "", message: String(error) },
		];
		problems.push(...errors.map(e => `${e.instancePath || "/"} ${e.message}`));
	}
	return [...problems, ...unread(document, "", read).map(field => `${field} is not a field of ${kind}`)];
}

/** Label maps and the parts of the workloads the rules below read. */
type Labels = Record<string, string>;
type Probe = { httpGet?: { port: number | string }; tcpSocket?: { port: number | string } };
type Container = {
	name: string;
	ports?: Array<{ name?: string }>;
	volumeMounts?: Array<{ name: string }>;
	envFrom?: Array<{ configMapRef?: { name: string } }>;
} & Partial<Record<"livenessProbe" | "readinessProbe" | "startupProbe", Probe>>;
type Pod = {
	containers: Container[];
	initContainers?: Container[];
	volumes?: Array<{ name: string; configMap?: { name: string } }>;
};

const dnsLabel = (s: string) => s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
const dnsSubdomain = (s: string) => s.length <= 253 && s.split(".").every(dnsLabel);
/** A port name: an IANA service name (15 characters at most, a letter among them, no double hyphen). */
const ianaServiceName = (s: string) =>
	s.length <= 15 && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(s) && /[a-z]/.test(s) && !s.includes("--");
const labelName = (s: string) => s.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(s);
/** A label or annotation key: an optional DNS-subdomain prefix, a slash, a name. */
const qualifiedName = (s: string) =>
	s.includes("/") ? dnsSubdomain(s.slice(0, s.indexOf("/"))) && labelName(s.slice(s.indexOf("/") + 1)) : labelName(s);
/** Every label map in a document (labels, matchLabels, a Service's selector), with its path. */
const labelMaps = (value: unknown, at: string, service: boolean): Array<[string, Labels]> =>
	value && typeof value === "object"
		? Object.entries(value).flatMap(([key, field]) => {
				const here = `${at}/${key}`;
				const isLabels = key === "labels" || key === "matchLabels" || (service && here === "/spec/selector");
				return [...(isLabels ? [[here, field as Labels] as [string, Labels]] : []), ...labelMaps(field, here, service)];
			})
		: [];
const selects = (selector: Labels | undefined, labels: Labels | undefined) =>
	!!selector && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/**
 * What the API server refuses (k8s.io/apimachinery's validation of names and labels, a selector that does not
 * match its template, a mount of no volume) or the cluster cannot run (a probe or Service on a port name no
 * container has, a reference to a ConfigMap or workload these files do not create), none of which the schemas say.
 */
function clusterProblems(documents: Manifest[]): string[] {
	const problems: string[] = [];
	const check = (ok: boolean, where: string, what: string) => ok || problems.push(`${where}: ${what}`);
	const nameOf = (d: Manifest) => String((d.metadata as Manifest | undefined)?.name);
	const names = (kind: string) => documents.filter(d => d.kind === kind).map(nameOf);
	const workloads = documents
		.filter(d => d.kind === "Deployment" || d.kind === "StatefulSet")
		.map(d => {
			const spec = d.spec as {
				selector: { matchLabels?: Labels };
				template: { metadata?: { labels?: Labels }; spec: Pod };
				volumeClaimTemplates?: Array<{ metadata: { name: string } }>;
			};
			return {
				where: `${String(d.kind)}/${nameOf(d)}`,
				spec,
				labels: spec.template.metadata?.labels,
				pod: spec.template.spec,
			};
		});
	const portNames = (pod: Pod) =>
		[...pod.containers, ...(pod.initContainers ?? [])].flatMap(c =>
			(c.ports ?? []).flatMap(p => (p.name ? [p.name] : [])),
		);

	for (const d of documents) {
		const where = `${String(d.kind)}/${nameOf(d)}`;
		// Services need a DNS-1035 label (their name is a host name); everything else here a DNS subdomain.
		check(
			d.kind === "Service" ? dnsLabel(nameOf(d)) && /^[a-z]/.test(nameOf(d)) : dnsSubdomain(nameOf(d)),
			where,
			"the name is not a DNS name",
		);
		for (const [at, labels] of labelMaps(d, "", d.kind === "Service"))
			for (const [k, v] of Object.entries(labels))
				check(
					qualifiedName(k) && (v === "" || labelName(String(v))),
					where,
					`${at}: ${k}=${String(v)} is not a valid label`,
				);
		for (const k of Object.keys((d.metadata as Manifest | undefined)?.annotations ?? {}))
			check(qualifiedName(k), where, `annotation ${k} is not a qualified name`);
		if (d.kind === "ConfigMap")
			for (const k of Object.keys(d.data ?? {}))
				check(k.length <= 253 && /^[-._a-zA-Z0-9]+$/.test(k), where, `${k} is not a ConfigMap key`);
	}

	for (const { where, spec, labels, pod } of workloads) {
		check(
			Object.keys(spec.selector.matchLabels ?? {}).length > 0 && selects(spec.selector.matchLabels, labels),
			where,
			"the selector does not match the template's labels",
		);
		const volumes = [
			...(pod.volumes ?? []).map(v => v.name),
			...(spec.volumeClaimTemplates ?? []).map(c => c.metadata.name),
		];
		check(new Set(volumes).size === volumes.length, where, "two volumes share a name");
		for (const volume of pod.volumes ?? []) {
			check(dnsLabel(volume.name), where, `volume ${volume.name} is not a DNS label`);
			if (volume.configMap)
				check(
					names("ConfigMap").includes(volume.configMap.name),
					where,
					`volume ${volume.name}: no ConfigMap ${volume.configMap.name}`,
				);
		}
		check(new Set(portNames(pod)).size === portNames(pod).length, where, "two ports share a name");
		for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
			const at = `${where} container ${container.name}`;
			check(dnsLabel(container.name), at, "the name is not a DNS label");
			for (const name of (container.ports ?? []).flatMap(p => (p.name ? [p.name] : [])))
				check(ianaServiceName(name), at, `port name ${name} is not an IANA service name`);
			for (const mount of container.volumeMounts ?? [])
				check(volumes.includes(mount.name), at, `mounts ${mount.name}, which is no volume`);
			for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"] as const) {
				const port = container[probe]?.httpGet?.port ?? container[probe]?.tcpSocket?.port;
				if (typeof port === "string")
					check(
						(container.ports ?? []).some(p => p.name === port),
						at,
						`${probe} on port ${port}, which the container does not name`,
					);
			}
			for (const ref of container.envFrom ?? [])
				if (ref.configMapRef)
					check(names("ConfigMap").includes(ref.configMapRef.name), at, `no ConfigMap ${ref.configMapRef.name}`);
		}
	}

	for (const d of documents.filter(d => d.kind === "Service")) {
		const where = `Service/${nameOf(d)}`;
		const spec = d.spec as { selector?: Labels; ports: Array<{ name?: string; targetPort?: number | string }> };
		const selected = workloads.filter(w => selects(spec.selector, w.labels));
		check(selected.length > 0, where, "its selector matches no workload here");
		for (const port of spec.ports) {
			if (port.name !== undefined) check(dnsLabel(port.name), where, `port name ${port.name} is not a DNS label`);
			if (typeof port.targetPort === "string")
				check(
					selected.length > 0 && selected.every(w => portNames(w.pod).includes(String(port.targetPort))),
					where,
					`targetPort ${port.targetPort} is not a port of the pods it selects`,
				);
		}
	}
	// Budgets and policies that select nothing protect nothing (an empty selector is every pod, on purpose).
	for (const d of documents.filter(d => d.kind === "PodDisruptionBudget" || d.kind === "NetworkPolicy")) {
		const selector = ((d.spec as Manifest).selector ?? (d.spec as Manifest).podSelector) as { matchLabels?: Labels };
		if (Object.keys(selector).length > 0)
			check(
				workloads.some(w => selects(selector.matchLabels, w.labels)),
				`${String(d.kind)}/${nameOf(d)}`,
				"its selector matches no workload here",
			);
	}
	for (const d of documents.filter(d => d.kind === "HorizontalPodAutoscaler")) {
		const target = (d.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef;
		check(
			workloads.some(w => w.where === `${target.kind}/${target.name}`),
			`HorizontalPodAutoscaler/${nameOf(d)}`,
			`no ${target.kind}/${target.name} to scale`,
		);
	}
	return problems;
}

const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const manifestFiles = fs
	.readdirSync(path.join(root, "k8s"))
	.filter(f => /\.ya?ml$/.test(f))
	.map(f => `k8s/${f}`);
/** kubectl reads YAML 1.1 (sigs.k8s.io/yaml): `on`, `yes` and `no` are booleans there. */
const yamlDocuments = (file: string, version: "1.1" | "1.2" = "1.1") => parseAllDocuments(read(file), { version });
const manifests = manifestFiles.flatMap(file =>
	yamlDocuments(file)
		.map((d, i) => ({ file, at: `${file}#${i}`, document: d.toJS() as Manifest | null }))
		.filter((m): m is { file: string; at: string; document: Manifest } => m.document !== null),
);
const label = ({ at, document }: (typeof manifests)[number]) =>
	`${at} ${String(document.kind)}/${String((document.metadata as Manifest | undefined)?.name)}`;

test("every file under k8s/ parses, the same as YAML 1.1 (kubectl) and 1.2, into documents of known kinds", () => {
	expect(manifestFiles.length).toBeGreaterThanOrEqual(10);
	for (const file of manifestFiles) {
		const documents = yamlDocuments(file);
		expect([file, documents.flatMap(d => d.errors.map(e => e.message))]).toEqual([file, []]);
		expect([file, documents.map(d => d.toJS() as unknown)]).toEqual([
			file,
			yamlDocuments(file, "1.2").map(d => d.toJS() as unknown),
		]);
	}
	const kinds = [...new Set(manifests.map(m => `${String(m.document.apiVersion)} ${String(m.document.kind)}`))].sort();
	expect(kinds).toEqual([
		"apps/v1 Deployment",
		"apps/v1 StatefulSet",
		"autoscaling/v2 HorizontalPodAutoscaler",
		"networking.k8s.io/v1 NetworkPolicy",
		"policy/v1 PodDisruptionBudget",
		"v1 ConfigMap",
		"v1 Service",
	]);
});

test("every document matches the Kubernetes schema of its apiVersion and kind, with no field the schema does not name", () => {
	expect(manifests.length).toBeGreaterThan(10);
	const problems = manifests.map(m => [label(m), schemaProblems(m.document)]).filter(([, p]) => p.length > 0);
	expect(problems).toEqual([]);
});

test("the API server would accept every name and label, and every reference inside the files leads somewhere", () => {
	expect(clusterProblems(manifests.map(m => m.document))).toEqual([]);
});

describe("a broken copy of a manifest is rejected", () => {
	type Path = Array<string | number>;
	const original = (kind: string, name: string) => {
		const found = manifests.find(m => m.document.kind === kind && (m.document.metadata as Manifest).name === name);
		if (!found) throw new Error(`no ${kind}/${name} under k8s/`);
		return structuredClone(found.document);
	};
	/** The object at a path of a document (the copy, so that it can be edited in place). */
	const at = (document: Manifest, where: Path) =>
		where.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], document) as Record<
			string | number,
			unknown
		>;
	/** A copy of a document with a field set, or removed (undefined). */
	const edited = (document: Manifest, where: Path, field: string, value: unknown) => {
		const copy = structuredClone(document);
		if (value === undefined) delete at(copy, where)[field];
		else at(copy, where)[field] = value;
		return copy;
	};
	/** A copy of a document with a field renamed. */
	const renamed = (document: Manifest, where: Path, field: string, typo: string) =>
		edited(edited(document, where, typo, at(document, where)[field]), where, field, undefined);
	const posts = original("Deployment", "plaza-posts");
	const container = ["spec", "template", "spec", "containers", 0];

	test.each<[string, Manifest, string]>([
		["a string where an integer belongs", edited(posts, ["spec"], "replicas", "2"), "/spec/replicas must be integer"],
		[
			"a typo'd container field",
			renamed(posts, container, "imagePullPolicy", "imagePulPolicy"),
			"/spec/template/spec/containers/0/imagePulPolicy is not a field of Deployment",
		],
		[
			"a field one level too deep",
			edited(posts, ["spec", "template", "spec"], "replicas", 2),
			"/spec/template/spec/replicas is not a field of Deployment",
		],
		[
			"a memory limit in a unit Kubernetes does not know",
			edited(posts, [...container, "resources", "limits"], "memory", "512MB"),
			'/spec/template/spec/containers/0/resources/limits/memory must match format "quantity"',
		],
		[
			"a container without its required name",
			edited(posts, container, "name", undefined),
			"/spec/template/spec/containers/0 must have required property name",
		],
		[
			"a boolean where a string belongs (an unquoted true in a ConfigMap)",
			edited(original("ConfigMap", "plaza-config"), ["data"], "SOME_FLAG", true),
			"/data/SOME_FLAG must be string",
		],
		[
			"a typo'd peer in a NetworkPolicy",
			renamed(
				original("NetworkPolicy", "plaza-probes"),
				["spec", "ingress", 0, "from", 0],
				"podSelector",
				"podSelectr",
			),
			"/spec/ingress/0/from/0/podSelectr is not a field of NetworkPolicy",
		],
		["a misspelled kind", edited(posts, [], "kind", "Deploymnt"), "no schema for Deploymnt in apps/v1"],
		[
			"a kind in the wrong API group",
			edited(original("PodDisruptionBudget", "plaza-posts"), [], "apiVersion", "apps/v1"),
			"no schema for PodDisruptionBudget in apps/v1",
		],
		[
			"a beta API that Kubernetes 1.25 removed",
			edited(original("PodDisruptionBudget", "plaza-posts"), [], "apiVersion", "policy/v1beta1"),
			"policy/v1beta1 is not a stable API version",
		],
	])("%s", (_, broken, problem) => {
		expect(schemaProblems(broken)).toContain(problem);
	});

	/** The files' documents with one of them replaced by its broken copy. */
	const withCopy = (broken: Manifest) =>
		manifests.map(m =>
			m.document.kind === broken.kind && (m.document.metadata as Manifest).name === (broken.metadata as Manifest).name
				? broken
				: m.document,
		);
	const gateway = original("Deployment", "plaza-gateway");

	test.each<[string, Manifest, string]>([
		[
			"a port name longer than 15 characters",
			edited(posts, [...container, "ports", 0], "name", "probes-and-metrics"),
			"Deployment/plaza-posts container posts: port name probes-and-metrics is not an IANA service name",
		],
		[
			"a probe on a port the container does not name",
			edited(gateway, [...container, "readinessProbe", "httpGet"], "port", "probe"),
			"Deployment/plaza-gateway container gateway: readinessProbe on port probe, which the container does not name",
		],
		[
			"a mount of a volume renamed",
			edited(posts, ["spec", "template", "spec", "volumes", 0], "name", "scratch"),
			"Deployment/plaza-posts container posts: mounts tmp, which is no volume",
		],
		[
			"a selector that misses the template's labels",
			edited(posts, ["spec", "selector", "matchLabels"], "app", "plaza-post"),
			"Deployment/plaza-posts: the selector does not match the template's labels",
		],
		[
			"a label value with a space",
			edited(posts, ["metadata", "labels"], "app", "plaza posts"),
			"Deployment/plaza-posts: /metadata/labels: app=plaza posts is not a valid label",
		],
		[
			"a Service on a target port the pods do not name",
			edited(original("Service", "plaza"), ["spec", "ports", 0], "targetPort", "htp"),
			"Service/plaza: targetPort htp is not a port of the pods it selects",
		],
		[
			"a NetworkPolicy that selects no pod",
			edited(
				original("NetworkPolicy", "plaza-gateway-http"),
				["spec", "podSelector", "matchLabels"],
				"app",
				"plaza-gatewy",
			),
			"NetworkPolicy/plaza-gateway-http: its selector matches no workload here",
		],
		[
			"an autoscaler of no Deployment",
			edited(original("HorizontalPodAutoscaler", "plaza-posts"), ["spec", "scaleTargetRef"], "name", "plaza-post"),
			"HorizontalPodAutoscaler/plaza-posts: no Deployment/plaza-post to scale",
		],
	])("%s", (_, broken, problem) => {
		expect(schemaProblems(broken)).toEqual([]);
		expect(clusterProblems(withCopy(broken))).toContain(problem);
	});
});
