import { MetadataOperationType, MetadataType, MetadataTypes } from "./model";

/**
 * The options of an "Add ServiceStack Reference" (the header comment of the DTOs). The CLI sends the
 * uncommented ones back as the query string when it updates a reference, so these are what the query may set.
 */
export interface ReferenceOptions {
	/** Only these types (`FindUser.*` also takes what FindUser refers to, its response included). */
	IncludeTypes: string[];
	ExcludeTypes: string[];
	/** The C# namespace of the DTOs. */
	GlobalNamespace: string;
}

export const defaultNamespace = "Plaza.ServiceModel";

/** The options a query string asks for, names in any case; lists comma-separated. */
export function referenceOptions(query: URLSearchParams): ReferenceOptions {
	const get = (name: string) =>
		[...query.entries()].find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1]?.trim() ?? "";
	// Only type names (and Name.*): the options are written back into the DTOs' header comment.
	const list = (name: string) =>
		get(name)
			.split(",")
			.map(s => s.trim())
			.filter(s => /^\w+(\.\*)?$/.test(s));
	return {
		IncludeTypes: list("IncludeTypes"),
		ExcludeTypes: list("ExcludeTypes"),
		GlobalNamespace: get("GlobalNamespace").replace(/[^\w.]/g, ""),
	};
}

/**
 * The header comment ServiceStack writes on top of DTOs: the CLI finds "Options:" in it, and reads
 * BaseUrl and every option not commented out ("//") from it to update the reference later.
 */
export function optionsHeader(baseUrl: string, version: string, options: Array<[name: string, value: string]>): string {
	return [
		"/* Options:",
		`Date: ${new Date().toISOString().replace("T", " ").slice(0, 19)}`,
		`Version: ${version}`,
		'Tip: To override a DTO option, remove "//" prefix before updating',
		`BaseUrl: ${baseUrl}`,
		"",
		...options.map(([name, value]) => (value ? `${name}: ${value}` : `//${name}: `)),
		"*/",
	].join("\n");
}

/** The model restricted to the types IncludeTypes and ExcludeTypes leave, as ServiceStack restricts it. */
export function selectTypes(model: MetadataTypes, options: ReferenceOptions): MetadataTypes {
	const { IncludeTypes: include, ExcludeTypes: exclude } = options;
	if (!include.length && !exclude.length) return model;
	const wanted = new Set(include.filter(name => !name.endsWith(".*")));
	for (const name of include.filter(n => n.endsWith(".*")))
		for (const found of referencedFrom(model, name.slice(0, -2))) wanted.add(found);
	const keep = (name: string) => (!include.length || wanted.has(name)) && !exclude.includes(name);
	return {
		...model,
		Types: model.Types.filter(t => keep(t.Name)),
		Operations: model.Operations.filter(op => keep(op.Request.Name)),
	};
}

/** A type's name and the names of every type it refers to, however deep (a request's response included). */
function referencedFrom(model: MetadataTypes, start: string): Set<string> {
	const types = new Map<string, MetadataType>(model.Types.map(t => [t.Name, t]));
	const operations = new Map<string, MetadataOperationType>(model.Operations.map(op => [op.Request.Name, op]));
	const found = new Set<string>();
	const visit = (name: string) => {
		if (found.has(name)) return;
		const operation = operations.get(name);
		const type = operation?.Request ?? types.get(name);
		if (!type) return;
		found.add(name);
		const names = type.Properties.flatMap(p => [p.Type, ...(p.GenericArgs ?? [])]);
		if (operation) names.push(operation.Response.Name, ...(operation.Response.GenericArgs ?? []));
		for (const text of names) for (const word of text.match(/\w+/g) ?? []) visit(word);
	};
	visit(start);
	return found;
}
