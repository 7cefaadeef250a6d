import { IncomingMessage } from "node:http";
import { failures } from "../../shared/errors";

/**
 * The raw body, refused with 413 as soon as it is known to be larger than `limit` (by its
 * Content-Length, or while it arrives); the rest of a refused body is read and thrown away, so the
 * client still gets its answer on the same connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const tooLarge = () => {
			req.removeAllListeners("data");
			req.resume();
			reject(failures.payloadTooLarge(limit));
		};
		if (Number(req.headers["content-length"]) > limit) return tooLarge();
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) return tooLarge();
			chunks.push(chunk);
		});
		req.once("end", () => resolve(Buffer.concat(chunks)));
		req.once("error", () => reject(failures.invalidBody("The request body was incomplete")));
		req.once("close", () => {
			if (!req.complete) reject(failures.invalidBody("The request body was incomplete"));
		});
	});
}
