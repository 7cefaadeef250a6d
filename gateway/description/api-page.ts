import { readFileSync } from "node:fs";
import path from "node:path";
import { ServerResponse } from "node:http";
import { failures } from "../../shared/errors";
import { setPagePolicy } from "../security-headers";

type AliasHandler = (req: unknown, res: ServerResponse, next: (err?: unknown) => void) => void;

interface Asset {
	type: string;
	/** The file in swagger-ui-dist, or the text Plaza serves itself. */
	file?: string;
	text?: string;
}

const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Plaza API</title>
<link rel="stylesheet" href="/swagger-ui/swagger-ui.css">
<link rel="icon" type="image/png" href="/swagger-ui/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/swagger-ui/plaza.js"></script>
</body>
</html>
`;

// In a file of its own, since the page's policy allows no inline script.
const start = `window.ui = SwaggerUIBundle({
	url: "/openapi.json",
	dom_id: "#swagger-ui",
	deepLinking: true,
	presets: [SwaggerUIBundle.presets.apis],
	layout: "BaseLayout",
	displayOperationId: true,
	validatorUrl: null,
});
`;

/** What the page is made of; nothing else under /swagger-ui is served. */
const assets: Record<string, Asset> = {
	"": { type: "text/html; charset=utf-8", text: page },
	"plaza.js": { type: "text/javascript; charset=utf-8", text: start },
	"swagger-ui.css": { type: "text/css; charset=utf-8", file: "swagger-ui.css" },
	"swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", file: "swagger-ui-bundle.js" },
	"favicon-32x32.png": { type: "image/png", file: "favicon-32x32.png" },
};

const loaded = new Map<string, Buffer>();

function contentOf(asset: Asset): Buffer {
	if (asset.text !== undefined) return Buffer.from(asset.text);
	const file = asset.file ?? "";
	let content = loaded.get(file);
	if (!content) {
		content = readFileSync(path.join(path.dirname(require.resolve("swagger-ui-dist/package.json")), file));
		loaded.set(file, content);
	}
	return content;
}

/** The browsable API page: Swagger UI (from swagger-ui-dist) on the OpenAPI document, at /swagger-ui/. */
export function apiPageAliases(): Record<string, AliasHandler> {
	const serve = (name: string, res: ServerResponse, next: (err?: unknown) => void) => {
		const asset = Object.hasOwn(assets, name) ? assets[name] : undefined;
		if (!asset) return next(failures.notFound(`The file ${name}`));
		setPagePolicy(res);
		if (asset.file) res.setHeader("Cache-Control", "public, max-age=86400");
		res.statusCode = 200;
		res.setHeader("Content-Type", asset.type);
		res.end(contentOf(asset));
	};
	return {
		"GET /swagger-ui"(_req, res, next) {
			serve("", res, next);
		},
		"GET /swagger-ui/:file"(req, res, next) {
			// find-my-way gives path parameters as strings.
			serve((req as { $params?: { file?: string } }).$params?.file ?? "", res, next);
		},
	};
}
