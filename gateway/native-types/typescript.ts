import { MetadataOperationType, MetadataPropertyType, MetadataType, MetadataTypeName, MetadataTypes } from "./model";
import { optionsHeader, ReferenceOptions } from "./options";

const scalars: Record<string, string> = {
	String: "string",
	Guid: "string",
	DateTime: "string",
	Int32: "number",
	Double: "number",
	Boolean: "boolean",
	Object: "Object",
};

/** Marker interfaces of the verbs, as ServiceStack declares them beside IReturn. */
const verbMarkers: Record<string, string> = { GET: "IGet", POST: "IPost", PUT: "IPut", DELETE: "IDelete" };

/**
 * The TypeScript DTOs of ServiceStack's `/types/typescript`, in the shape `typescript-ref` saves and
 * `@servicestack/client` sends: a class per request with its routes, `getTypeName()`, `getMethod()` and
 * `createResponse()`; a class per record. Properties keep the wire's names and are optional, so the
 * file compiles under `tsc --strict` (required fields are marked `// @Required()`).
 */
export function typeScriptDtos(model: MetadataTypes, options: ReferenceOptions): string {
	const header = optionsHeader(model.Config.BaseUrl, model.Config.Version, [
		["IncludeTypes", options.IncludeTypes.join(",")],
		["ExcludeTypes", options.ExcludeTypes.join(",")],
	]);
	const blocks = [
		"export interface IReturn<T>\n{\n    createResponse(): T;\n}",
		"export interface IReturnVoid\n{\n    createResponse(): void;\n}",
		...Object.values(verbMarkers).map(name => `export interface ${name}\n{\n}`),
		...model.Types.map(t => typeClass(t)),
		...model.Operations.map(op => requestClass(op)),
	];
	return `${header}\n\n\n${blocks.join("\n\n")}\n\n`;
}

function typeClass(t: MetadataType): string {
	return [
		...descriptionComment(t.Description),
		`export class ${t.Name}`,
		"{",
		...properties(t.Properties),
		constructorOf(t.Name),
		"}",
	].join("\n");
}

function requestClass(op: MetadataOperationType): string {
	const name = op.Request.Name;
	const response = typeOf(op.Response);
	const marker = verbMarkers[op.Method];
	return [
		...descriptionComment(op.Summary),
		...op.Routes.map(r => `// @Route(${JSON.stringify(r.Path)}, ${JSON.stringify(r.Verbs)})`),
		`export class ${name} implements IReturn<${response}>${marker ? `, ${marker}` : ""}`,
		"{",
		...properties(op.Request.Properties),
		constructorOf(name),
		`    public getTypeName() { return '${name}'; }`,
		`    public getMethod() { return '${op.Method}'; }`,
		`    public createResponse() { return ${newResponse(op.Response)}; }`,
		"}",
	].join("\n");
}

function properties(list: MetadataPropertyType[]): string[] {
	return list
		.flatMap(p => [
			...(p.Description ? [`    /** @description ${commentText(p.Description)} */`] : []),
			...(p.IsRequired ? ["    // @Required()"] : []),
			`    public ${propertyName(p.Name)}?: ${typeOf({ Name: p.Type, GenericArgs: p.GenericArgs })};`,
		])
		.concat(list.length ? [""] : []);
}

function constructorOf(name: string): string {
	return `    public constructor(init?: Partial<${name}>) { Object.assign(this, init); }`;
}

function newResponse(response: MetadataTypeName): string {
	if (response.Name === "List`1") return `new Array<${typeOf(parseArgument(response.GenericArgs?.[0] ?? "Object"))}>()`;
	return response.Name in scalars ? `${typeOf(response)}` : `new ${response.Name}()`;
}

/** The TypeScript type of a .NET type name. */
function typeOf(t: MetadataTypeName): string {
	const args = (t.GenericArgs ?? []).map(a => typeOf(parseArgument(a)));
	if (t.Name === "List`1") return `${args[0] ?? "Object"}[]`;
	if (t.Name === "Dictionary`2") return `{ [index:string]: ${args[1] ?? "Object"}; }`;
	return scalars[t.Name] ?? t.Name;
}

/** A generic argument written in C# syntax (`List<String>`) as a type name with its arguments. */
function parseArgument(text: string): MetadataTypeName {
	const generic = /^(\w+)<(.*)>$/.exec(text.trim());
	if (!generic) return { Name: text.trim() };
	const args = splitTopLevel(generic[2]);
	return { Name: `${generic[1]}\`${args.length}`, GenericArgs: args };
}

function splitTopLevel(text: string): string[] {
	const parts: string[] = [];
	let depth = 0;
	let start = 0;
	for (let i = 0; i < text.length; i++) {
		if (text[i] === "<") depth++;
		else if (text[i] === ">") depth--;
		else if (text[i] === "," && depth === 0) {
			parts.push(text.slice(start, i).trim());
			start = i + 1;
		}
	}
	parts.push(text.slice(start).trim());
	return parts;
}

/** A property name as the wire spells it; quoted when it is not an identifier. */
function propertyName(name: string): string {
	return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function descriptionComment(text: string | undefined): string[] {
	return text ? [`/** @description ${commentText(text)} */`] : [];
}

/** Text safe inside a block comment. */
function commentText(text: string): string {
	return text.replace(/\*\//g, "* /").replace(/\s+/g, " ");
}
