import { createHash } from "node:crypto";
import { ServerResponse } from "node:http";

/** Text or an attribute value in HTML: every character that could end either is a reference. */
export function escapeHtml(text: string): string {
	return text
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(/"/g, "&quot;")
		.replace(/'/g, "&#39;");
}

const style = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; margin: .5em 0; }
th, td { text-align: left; vertical-align: top; padding: .3em .6em; border-bottom: 1px solid #eee; }
th { background: #f5f5f5; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f7f7f9; border: 1px solid #e1e1e8; padding: .8em; overflow-x: auto; }
a { color: #0b5cad; }
.verb { font-weight: bold; }
.note { color: #555; }
`;

/**
 * The metadata pages run no script and load nothing: their one inline stylesheet is allowed by its
 * hash, everything else stays refused as on every API response (security-headers.ts).
 */
const policy = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** A whole page; `body` is HTML already escaped. */
export function htmlPage(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
	if (res.headersSent) return;
	res.statusCode = status;
	res.setHeader("Content-Security-Policy", policy);
	res.setHeader("Content-Type", "text/html; charset=utf-8");
	res.end(html);
}
