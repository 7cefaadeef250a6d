import { IncomingMessage } from "node:http";
import Busboy from "@fastify/busboy";
import { failures } from "../shared/errors";

/**
 * A multipart/form-data body's fields, bound like a JSON body: text parts by name (a repeated name: a list), a file
 * part as base64 under its name, with its type as ContentType unless a part says otherwise. Over `limitBytes` in all
 * is a 413 and stops the upload; a text part may be as large as the body (busboy would silently cut it at 1 MB).
 */
export function readMultipart(req: IncomingMessage, limitBytes: number): Promise<Record<string, unknown>> {
	return new Promise((resolve, reject) => {
		const fields: Record<string, unknown> = {};
		let fileType: string | undefined;
		let total = 0;
		let failed = false;
		const fail = (err: unknown) => {
			if (failed) return;
			failed = true;
			req.unpipe();
			req.resume(); // drain the rest, so the client reads our answer
			reject(err);
		};
		let parser: ReturnType<typeof Busboy>;
		try {
			parser = Busboy({
				headers: req.headers as never,
				limits: { fileSize: limitBytes, fieldSize: limitBytes, fields: 50, files: 1, parts: 60 },
			});
		} catch {
			return reject(failures.invalidBody("The multipart body is malformed"));
		}
		parser.on("field", (name, value) => {
			total += value.length;
			if (total > limitBytes) return fail(failures.payloadTooLarge(limitBytes));
			// A repeated name is a list, as in a form body (Tags=a&Tags=b).
			const earlier = fields[name];
			fields[name] =
				earlier === undefined ? value : [...(Array.isArray(earlier) ? (earlier as unknown[]) : [earlier]), value];
		});
		parser.on("file", (name, stream, _filename, _encoding, mimeType) => {
			const chunks: Buffer[] = [];
			fileType = mimeType;
			stream.on("data", (chunk: Buffer) => {
				total += chunk.length;
				chunks.push(chunk);
			});
			stream.on("limit", () => fail(failures.payloadTooLarge(limitBytes)));
			stream.on("end", () => {
				fields[name] = Buffer.concat(chunks).toString("base64");
			});
		});
		parser.on("error", () => fail(failures.invalidBody("The multipart body is malformed")));
		parser.on("finish", () => {
			if (failed) return;
			if (total > limitBytes) return fail(failures.payloadTooLarge(limitBytes));
			if (fileType && !Object.keys(fields).some(k => k.toLowerCase() === "contenttype")) fields.ContentType = fileType;
			resolve(fields);
		});
		req.pipe(parser);
	});
}
