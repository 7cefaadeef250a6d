import { MetadataOperationType, MetadataPropertyType, MetadataType, MetadataTypeName, MetadataTypes } from "./model";
import { defaultNamespace, optionsHeader, ReferenceOptions } from "./options";

const keywords: Record<string, string> = {
	String: "string",
	Int32: "int",
	Double: "double",
	Boolean: "bool",
	Object: "Object",
};

const verbMarkers: Record<string, string> = { GET: "IGet", POST: "IPost", PUT: "IPut", DELETE: "IDelete" };

/**
 * The C# DTOs of ServiceStack's `/types/csharp`, as `csharp-ref` saves them for a ServiceStack
 * JsonServiceClient: `[Route]` attributes and `IReturn<T>` on the requests, partial classes with
 * virtual properties; value types are nullable unless required, since Plaza leaves nulls out.
 */
export function cSharpDtos(model: MetadataTypes, options: ReferenceOptions): string {
	const namespace = options.GlobalNamespace || defaultNamespace;
	const header = optionsHeader(model.Config.BaseUrl, model.Config.Version, [
		["GlobalNamespace", options.GlobalNamespace],
		["IncludeTypes", options.IncludeTypes.join(",")],
		["ExcludeTypes", options.ExcludeTypes.join(",")],
	]);
	const usings = [
		"System",
		"System.IO",
		"System.Collections",
		"System.Collections.Generic",
		"System.Runtime.Serialization",
		"ServiceStack",
		"ServiceStack.DataAnnotations",
		namespace,
	];
	const classes = [...model.Types.map(t => typeClass(t)), ...model.Operations.map(op => requestClass(op))];
	return `${header}\n\n${usings.map(u => `using ${u};`).join("\n")}\n\n\nnamespace ${namespace}\n{\n\n${classes.join("\n\n")}\n}\n\n`;
}

function typeClass(t: MetadataType): string {
	return [
		...summary(t.Description),
		`    public partial class ${t.Name}`,
		"    {",
		...properties(t.Properties),
		"    }",
	].join("\n");
}

function requestClass(op: MetadataOperationType): string {
	const marker = verbMarkers[op.Method];
	return [
		...summary(op.Summary),
		...op.Routes.map(r => `    [Route(${JSON.stringify(r.Path)}, ${JSON.stringify(r.Verbs)})]`),
		`    public partial class ${op.Request.Name}`,
		`        : IReturn<${typeOf(op.Response)}>${marker ? `, ${marker}` : ""}`,
		"    {",
		...properties(op.Request.Properties),
		"    }",
	].join("\n");
}

function properties(list: MetadataPropertyType[]): string[] {
	return list.flatMap(p => {
		const type = typeOf({ Name: p.Type, GenericArgs: p.GenericArgs });
		const nullable = p.IsValueType && !p.IsRequired ? "?" : "";
		return [
			...(p.Description ? [`        ///<summary>\n        ///${xmlText(p.Description)}\n        ///</summary>`] : []),
			...(p.IsRequired ? ["        [Required]"] : []),
			...(/^\w+$/.test(p.Name) ? [] : [`        [DataMember(Name=${JSON.stringify(p.Name)})]`]),
			`        public virtual ${type}${nullable} ${identifier(p.Name)} { get; set; }`,
		];
	});
}

/** The C# type of a .NET type name; generic arguments are already written in C#. */
function typeOf(t: MetadataTypeName): string {
	const args = (t.GenericArgs ?? []).map(a => keywords[a] ?? a);
	if (t.Name === "List`1") return `List<${args[0] ?? "Object"}>`;
	if (t.Name === "Dictionary`2") return `Dictionary<${args.join(", ")}>`;
	return keywords[t.Name] ?? t.Name;
}

/** A property name as C# allows it (a keyword gets @). */
function identifier(name: string): string {
	const safe = name.replace(/\W/g, "_");
	return /^(abstract|as|base|bool|break|byte|case|catch|char|checked|class|const|continue|decimal|default|delegate|do|double|else|enum|event|explicit|extern|false|finally|fixed|float|for|foreach|goto|if|implicit|in|int|interface|internal|is|lock|long|namespace|new|null|object|operator|out|override|params|private|protected|public|readonly|ref|return|sbyte|sealed|short|sizeof|stackalloc|static|string|struct|switch|this|throw|true|try|typeof|uint|ulong|unchecked|unsafe|ushort|using|virtual|void|volatile|while)$/.test(
		safe,
	)
		? `@${safe}`
		: safe;
}

function summary(text: string | undefined): string[] {
	return text ? [`    ///<summary>\n    ///${xmlText(text)}\n    ///</summary>`] : [];
}

function xmlText(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\s+/g, " ");
}
