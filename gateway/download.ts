import { IncomingMessage, ServerResponse } from "node:http";

/** A file as an operation answers it (see Operation.download). */
export interface FileRecord {
	ContentType?: string;
	ETag?: string;
	Data?: string;
}

/**
 * Sends a file's bytes with its type, a strong ETag, and long private caching (the bytes behind an
 * id never change; "private" because reading them may need the caller's rights). A matching
 * If-None-Match gets 304 and no body.
 */
export function sendFile(req: IncomingMessage, res: ServerResponse, file: FileRecord): void {
	const etag = `"${file.ETag ?? ""}"`;
	res.setHeader("ETag", etag);
	res.setHeader("Cache-Control", "private, max-age=31536000, immutable");
	const wanted = req.headers["if-none-match"];
	if (wanted && wanted.split(",").some(tag => tag.trim().replace(/^W\//, "") === etag)) {
		res.statusCode = 304;
		res.end();
		return;
	}
	const bytes = Buffer.from(file.Data ?? "", "base64");
	res.statusCode = 200;
	res.setHeader("Content-Type", file.ContentType ?? "application/octet-stream");
	res.setHeader("Content-Length", bytes.length);
	res.end(bytes);
}
