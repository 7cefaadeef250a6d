import { DescribedOperation } from "../description/endpoints";
import { RecordShape, requestShape, Shape } from "../description/shapes";
import { ns } from "./namespaces";
import { members, responseLayout, Space, xsdType } from "./xsd";
import { escapeAttribute } from "./xml";

/** Where the service address goes; each request fills in the base URL it came to. */
const addressSlot = "{{address}}";

/** WCF's own data types, which every ServiceStack WSDL carries as they are. */
const serializationSchema = `    <xs:schema xmlns:tns="${ns.serialization}" attributeFormDefault="qualified" elementFormDefault="qualified" targetNamespace="${ns.serialization}" xmlns:xs="${ns.xs}">
${[
	"anyType",
	"anyURI",
	"base64Binary",
	"boolean",
	"byte",
	"dateTime",
	"decimal",
	"double",
	"float",
	"int",
	"long",
	"QName",
	"short",
	"string",
	"unsignedByte",
	"unsignedInt",
	"unsignedLong",
	"unsignedShort",
]
	.map(t => `      <xs:element name="${t}" nillable="true" type="xs:${t}" />`)
	.join("\n")}
      <xs:element name="char" nillable="true" type="tns:char" />
      <xs:simpleType name="char">
        <xs:restriction base="xs:int" />
      </xs:simpleType>
      <xs:element name="duration" nillable="true" type="tns:duration" />
      <xs:simpleType name="duration">
        <xs:restriction base="xs:duration">
          <xs:pattern value="\\-?P(\\d*D)?(T(\\d*H)?(\\d*M)?(\\d*(\\.\\d*)?S)?)?" />
          <xs:minInclusive value="-P10675199DT2H48M5.4775808S" />
          <xs:maxInclusive value="P10675199DT2H48M5.4775807S" />
        </xs:restriction>
      </xs:simpleType>
      <xs:element name="guid" nillable="true" type="tns:guid" />
      <xs:simpleType name="guid">
        <xs:restriction base="xs:string">
          <xs:pattern value="[\\da-fA-F]{8}-[\\da-fA-F]{4}-[\\da-fA-F]{4}-[\\da-fA-F]{4}-[\\da-fA-F]{12}" />
        </xs:restriction>
      </xs:simpleType>
      <xs:attribute name="FactoryType" type="xs:QName" />
      <xs:attribute name="Id" type="xs:ID" />
      <xs:attribute name="Ref" type="xs:IDREF" />
    </xs:schema>`;

/** The prefix each schema binds a namespace to. */
const prefixes: Record<Space, string> = { types: "tns", arrays: "arr", serialization: "ser", xs: "xs" };

/**
 * The WSDL of the operations, in the shape of ServiceStack's (shared/reference): three schemas,
 * complexTypes with alphabetical members, ArrayOf types, the guid type, messages `<Op>In`/`<Op>Out`,
 * port type ISyncReply, binding BasicHttpBinding_ISyncReply, service SyncReply. Returns a function
 * of the service address, so that the document is built once.
 */
export function wsdlFor(ops: readonly DescribedOperation[]): (address: string) => string {
	const types = new TypeCollector();
	for (const op of ops) {
		types.add(requestShape(op));
		types.add(responseLayout(op).type);
	}
	const names = ops.map(op => op.name);
	const operation = (name: string, body: string) =>
		`    <wsdl:operation name="${name}">\n${body}\n    </wsdl:operation>`;
	const document = `<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions name="Soap11" targetNamespace="${ns.types}" xmlns:svc="${ns.types}" xmlns:tns="${ns.types}" xmlns:wsdl="${ns.wsdl}" xmlns:soap="${ns.wsdlSoap}" xmlns:xsd="${ns.xs}">
  <wsdl:types>
${serializationSchema}
    <xs:schema xmlns:ser="${ns.serialization}" xmlns:arr="${ns.arrays}" xmlns:tns="${ns.types}" elementFormDefault="qualified" targetNamespace="${ns.types}" xmlns:xs="${ns.xs}">
      <xs:import namespace="${ns.serialization}" />
      <xs:import namespace="${ns.arrays}" />
${types.render("types")}
    </xs:schema>
    <xs:schema xmlns:ser="${ns.serialization}" xmlns:tns="${ns.arrays}" elementFormDefault="qualified" targetNamespace="${ns.arrays}" xmlns:xs="${ns.xs}">
      <xs:import namespace="${ns.serialization}" />
${types.render("arrays")}
    </xs:schema>
  </wsdl:types>
${names.map(n => `  <wsdl:message name="${n}In">\n    <wsdl:part name="par" element="tns:${n}" />\n  </wsdl:message>\n  <wsdl:message name="${n}Out">\n    <wsdl:part name="par" element="tns:${n}Response" />\n  </wsdl:message>`).join("\n")}
  <wsdl:portType name="ISyncReply">
${names.map(n => operation(n, `      <wsdl:input message="svc:${n}In" />\n      <wsdl:output message="svc:${n}Out" />`)).join("\n")}
  </wsdl:portType>
  <wsdl:binding name="BasicHttpBinding_ISyncReply" type="svc:ISyncReply">
    <soap:binding transport="${ns.soapHttp}" />
${names.map(n => operation(n, `      <soap:operation soapAction="${ns.types}/${n}" style="document" />\n      <wsdl:input>\n        <soap:body use="literal" />\n      </wsdl:input>\n      <wsdl:output>\n        <soap:body use="literal" />\n      </wsdl:output>`)).join("\n")}
  </wsdl:binding>
  <wsdl:service name="SyncReply">
    <wsdl:port name="BasicHttpBinding_ISyncReply" binding="svc:BasicHttpBinding_ISyncReply">
      <soap:address location="${addressSlot}" />
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
`;
	const [before, after] = document.split(addressSlot);
	return address => before + escapeAttribute(address) + after;
}

interface Declared {
	space: Space;
	xml: string;
	/** What the name stands for, to tell two different records of one name apart. */
	signature: string;
}

/** The complexTypes the operations use, each once, in the order they are first met (depth first). */
class TypeCollector {
	private readonly declared = new Map<string, Declared>();

	add(shape: Shape): void {
		if (shape.kind === "list") this.addList(shape.item);
		else if (shape.kind === "dictionary") this.addDictionary(shape.value);
		else if (shape.kind === "record") this.addRecord(shape);
	}

	render(space: Space): string {
		return [...this.declared.values()]
			.filter(d => d.space === space)
			.map(d => d.xml)
			.join("\n");
	}

	private declare(space: Space, name: string, signature: string, body: string): boolean {
		const key = `${space}:${name}`;
		const existing = this.declared.get(key);
		if (existing) {
			if (existing.signature !== signature)
				throw new Error(`Two different types are named ${name}: rename one record or operation`);
			return false;
		}
		const xml = `      <xs:complexType name="${name}">\n${body}\n      </xs:complexType>\n      <xs:element name="${name}" nillable="true" type="tns:${name}" />`;
		this.declared.set(key, { space, xml, signature });
		return true;
	}

	private addRecord(record: RecordShape): void {
		const fields = members(record);
		const signature = fields
			.filter(f => f.name !== "ResponseStatus")
			.map(f => `${f.name}:${xsdType(f.shape).name}`)
			.join(",");
		const elements = fields.map(f => `          ${element(f.name, f.shape, "types", 'minOccurs="0"')}`);
		const body = elements.length
			? `        <xs:sequence>\n${elements.join("\n")}\n        </xs:sequence>`
			: "        <xs:sequence />";
		if (this.declare("types", record.name, signature, body)) for (const f of fields) this.add(f.shape);
	}

	private addList(item: Shape): void {
		const type = xsdType({ kind: "list", item });
		const itemType = xsdType(item);
		const body = `        <xs:sequence>\n          ${element(itemType.name, item, type.space, 'minOccurs="0" maxOccurs="unbounded"')}\n        </xs:sequence>`;
		if (this.declare(type.space, type.name, type.name, body)) this.add(item);
	}

	private addDictionary(value: Shape): void {
		const type = xsdType({ kind: "dictionary", value });
		const valueType = xsdType(value);
		const body = `        <xs:annotation>
          <xs:appinfo>
            <IsDictionary xmlns="${ns.serialization}">true</IsDictionary>
          </xs:appinfo>
        </xs:annotation>
        <xs:sequence>
          <xs:element minOccurs="0" maxOccurs="unbounded" name="KeyValueOfstring${valueType.name}">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="Key" nillable="true" type="xs:string" />
                ${element("Value", value, type.space, "")}
              </xs:sequence>
            </xs:complexType>
          </xs:element>
        </xs:sequence>`;
		if (this.declare(type.space, type.name, type.name, body)) this.add(value);
	}
}

/** An element declaration inside a schema of `space`, its type named with that schema's prefixes. */
function element(name: string, shape: Shape, space: Space, occurs: string): string {
	const type = xsdType(shape);
	const prefix = type.space === space ? "tns" : prefixes[type.space];
	return `<xs:element ${occurs ? `${occurs} ` : ""}name="${name}"${type.nillable ? ' nillable="true"' : ""} type="${prefix}:${type.name}" />`;
}
