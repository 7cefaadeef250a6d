import { catalogue, Operation, operationNamed } from "../../shared/catalogue";
import { RequestMeta } from "../../shared/caller";
import { PageHandler } from "../request";
import { accessNote, endpointsOf } from "./endpoints";
import { exampleRequestBody, exampleResponseBody } from "./examples";
import { escapeHtml, htmlPage, sendHtml } from "./html";
import { Field, recordOf, recordsWithin, RecordShape, requestShape, Shape, shapeOf } from "./shapes";
import { fieldNote } from "./wire-notes";

type Format = "json" | "xml" | "soap11";

/** The formats Plaza answers in, as ServiceStack's metadata pages list them: each has a page per operation. */
const formats: Record<Format, { label: string; contentType: string; genericRoute: (op: string) => string }> = {
	json: { label: "JSON", contentType: "application/json", genericRoute: op => `/json/reply/${op}` },
	xml: { label: "XML", contentType: "application/xml", genericRoute: op => `/xml/reply/${op}` },
	soap11: { label: "SOAP 1.1", contentType: "text/xml; charset=utf-8", genericRoute: () => "/soap11" },
};

const formatNames = Object.keys(formats) as Format[];

const pageOf = (format: Format, op: string) => `/${format}/metadata?op=${encodeURIComponent(op)}`;

/**
 * ServiceStack's metadata pages, from the catalogue: GET /metadata lists every operation, its routes
 * and formats; GET /{json,xml,soap11}/metadata?op=X shows one operation's fields, routes, access
 * and example messages in that format. Plain HTML, no script.
 */
export function metadataAliases(): Record<string, PageHandler> {
	let index: string | undefined;
	const aliases: Record<string, PageHandler> = {
		"GET /metadata"(_req, res) {
			index ??= indexPage(catalogue);
			sendHtml(res, 200, index);
		},
	};
	for (const format of formatNames) {
		aliases[`GET /${format}/metadata`] = (req, res) => {
			const name = req.$params.op;
			if (name === undefined || name === "") {
				res.statusCode = 302;
				res.setHeader("Location", "/metadata");
				return res.end();
			}
			const op = typeof name === "string" ? operationNamed(name) : undefined;
			// eslint-disable-next-line @typescript-eslint/no-base-to-string -- a path parameter: a string, or a list when repeated in the query
			if (!op) return sendHtml(res, 404, notFoundPage(String(name)));
			const baseUrl = (req.$ctx.meta as RequestMeta).baseUrl ?? "http://localhost";
			sendHtml(res, 200, operationPage(op, format, new URL(baseUrl).host));
		};
	}
	return aliases;
}

function indexPage(ops: readonly Operation[]): string {
	const rows = ops.map(op => {
		const routes = (op.routes.length ? endpointsOf(op) : []).map(
			e => `<code><span class="verb">${e.method}</span> ${escapeHtml(e.path)}</code>`,
		);
		const links = formatNames
			.map(f => `<td><a href="${escapeHtml(pageOf(f, op.name))}">${formats[f].label}</a></td>`)
			.join("");
		return `<tr><td><a href="${escapeHtml(pageOf("json", op.name))}">${escapeHtml(op.name)}</a></td><td>${escapeHtml(op.summary)}</td><td>${routes.join("<br>") || '<span class="note">generic route only</span>'}</td>${links}</tr>`;
	});
	return htmlPage(
		"Plaza metadata",
		`<h1>Plaza</h1>
<p>The operations this service answers. Each is reachable by its REST routes, by the generic route <code>POST /json/reply/{Operation}</code> (<code>/xml/reply/{Operation}</code> for XML) and by SOAP 1.1 at <code>/soap11</code>. Follow a format's link for the operation's fields and an example request.</p>
<p>Also: <a href="/swagger-ui/">the API page</a> · <a href="/openapi.json">OpenAPI 3</a> · <a href="/soap11?wsdl">WSDL</a> · <a href="/resources">Swagger 1.2 resources</a> · <a href="/operations">the operation listing (JSON)</a></p>
<table>
<thead><tr><th>Operation</th><th>Summary</th><th>Routes</th>${formatNames.map(f => `<th>${formats[f].label}</th>`).join("")}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>`,
	);
}

function operationPage(op: Operation, format: Format, host: string): string {
	const { label, contentType, genericRoute } = formats[format];
	const request = requestShape(op);
	const response = shapeOf(op.response, `${op.name}Response`);
	const shown = new Set<string>();
	const routes = [
		...(op.routes.length ? endpointsOf(op) : []).map(e => [e.method, e.path]),
		["POST", genericRoute(op.name)],
	];
	const others = formatNames
		.filter(f => f !== format)
		.map(f => `<a href="${escapeHtml(pageOf(f, op.name))}">${formats[f].label}</a>`);

	const requestHead = [
		`POST ${genericRoute(op.name)} HTTP/1.1`,
		`Host: ${host}`,
		...(format === "soap11" ? [] : [`Accept: ${contentType}`]),
		`Content-Type: ${contentType}`,
		"Content-Length: length",
	];
	if (format === "soap11") requestHead.push(`SOAPAction: http://schemas.servicestack.net/types/${op.name}`);
	const responseBody = exampleResponseBody(op, format);

	return htmlPage(
		`${op.name} · Plaza metadata`,
		`<p><a href="/metadata">All operations</a> · this operation in ${others.join(" · ")}</p>
<h1>${escapeHtml(op.name)}</h1>
<p>${escapeHtml(op.summary)}</p>
<p class="note">${escapeHtml(accessNote(op))}</p>
<h2>Routes</h2>
<table><thead><tr><th>Verb</th><th>Path</th></tr></thead><tbody>
${routes.map(([method, path]) => `<tr><td class="verb">${method}</td><td><code>${escapeHtml(path)}</code></td></tr>`).join("\n")}
</tbody></table>
<h2>Request: ${escapeHtml(op.name)}</h2>
${recordTables(request, shown)}
<h2>Response: ${escapeHtml(typeLabel(response))}</h2>
${recordTables(response, shown)}
<h2>Example request (${label})</h2>
<pre>${escapeHtml(`${requestHead.join("\n")}\n\n${exampleRequestBody(op, format)}`)}</pre>
${responseBody === undefined ? "" : `<h2>Example response (${label})</h2>\n<pre>${escapeHtml(`HTTP/1.1 200 OK\nContent-Type: ${format === "json" ? "application/json; charset=utf-8" : contentType}\nContent-Length: length\n\n${responseBody}`)}</pre>`}`,
	);
}

/**
 * A table of fields for each record the shape holds that is not on the page yet; the shape's own record is the
 * section's and has no title of its own.
 */
function recordTables(shape: Shape, shown: Set<string>): string {
	const own = recordOf(shape);
	if (!own) return `<p>${escapeHtml(typeLabel(shape))}</p>`;
	const records = [...recordsWithin(shape).values()].filter(r => !shown.has(r.name));
	for (const r of records) shown.add(r.name);
	return records.map(r => recordTable(r, r !== own)).join("\n");
}

function recordTable(record: RecordShape, titled: boolean): string {
	const rows = record.fields.map(
		f =>
			`<tr><td><code>${escapeHtml(f.name)}</code></td><td>${escapeHtml(typeLabel(f.shape))}</td><td>${f.required ? "yes" : "no"}</td><td>${escapeHtml(fieldDescription(f))}</td></tr>`,
	);
	const title = titled ? `<h3>${escapeHtml(record.name)}</h3>\n` : "";
	if (rows.length === 0) return `${title}<p class="note">No fields.</p>`;
	return `${title}<table><thead><tr><th>Name</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table>`;
}

function fieldDescription(f: Field): string {
	const values = f.values?.length ? `One of ${f.values.map(v => JSON.stringify(v)).join(", ")}` : undefined;
	const lengthy = f.shape.kind === "string" || f.shape.kind === "list";
	const bounds = [
		f.min !== undefined ? `${lengthy ? "at least" : "≥"} ${f.min}` : undefined,
		f.max !== undefined ? `${lengthy ? "at most" : "≤"} ${f.max}` : undefined,
	]
		.filter(Boolean)
		.join(", ");
	return [
		fieldNote(f),
		values,
		bounds ? `${bounds}${lengthy ? (f.shape.kind === "list" ? " items" : " characters") : ""}` : undefined,
	]
		.filter(Boolean)
		.join(". ");
}

/** Type names as ServiceStack's metadata pages write them (C#'s). */
function typeLabel(shape: Shape): string {
	switch (shape.kind) {
		case "record":
			return shape.name;
		case "list":
			return `List<${typeLabel(shape.item)}>`;
		case "dictionary":
			return `Dictionary<string, ${typeLabel(shape.value)}>`;
		case "guid":
			return "Guid";
		case "timestamp":
			return "DateTime";
		case "integer":
			return "int";
		case "number":
			return "double";
		case "boolean":
			return "bool";
		case "string":
			return "string";
		default:
			return "object";
	}
}

function notFoundPage(name: string): string {
	return htmlPage(
		"Not found · Plaza metadata",
		`<h1>No such operation</h1>\n<p>There is no operation named <code>${escapeHtml(name)}</code>.</p>\n<p><a href="/metadata">All operations</a></p>`,
	);
}
