import { deflateSync } from "node:zlib";

export const crashAdminKey = "crash-admin-key-0123456789abcdef0123456789";

/** A record or a list of them, as the crash checks read them. */
export type Body = Record<string, unknown> & { Id: string } & Array<Record<string, unknown> & { Id: string }>;

export interface Reply {
	status: number;
	body: Body;
	bytes: Buffer;
}

/**
 * Requests to Plaza's gateway, as the administrator unless other headers say otherwise. A request
 * the server never answered (killed, reset) throws; the caller then counts the write as cut off.
 */
export class CrashClient {
	constructor(public url: string) {}

	async send(method: string, route: string, body?: unknown, headers: Record<string, string> = { Authorization: `Bearer ${crashAdminKey}` }, timeoutMs = 20_000): Promise<Reply> {
		const res = await fetch(this.url + route, {
			method,
			headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const bytes = Buffer.from(await res.arrayBuffer());
		const text = bytes.toString("utf8");
		return { status: res.status, bytes, body: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as Body };
	}

	/** Every page of a list route (Limit 1000 each). */
	async all(route: string): Promise<Body> {
		const out: Array<Record<string, unknown> & { Id: string }> = [];
		for (let offset = 0; ; offset += 1000) {
			const page = await this.send("GET", `${route}${route.includes("?") ? "&" : "?"}Limit=1000&Offset=${offset}`);
			if (page.status !== 200) throw new Error(`GET ${route}: ${page.status} ${page.bytes.toString("utf8").slice(0, 200)}`);
			out.push(...page.body);
			if (page.body.length < 1000) return out as Body;
		}
	}
}

/** A real PNG of w×h pixels of one grey (CRCs included): each upload's bytes differ by size and shade. */
export function png(width: number, height: number, shade = 0x80): Buffer {
	const crcTable = Array.from({ length: 256 }, (_, n) => {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		return c >>> 0;
	});
	const crc = (buf: Buffer) => {
		let c = 0xffffffff;
		for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
		return (c ^ 0xffffffff) >>> 0;
	};
	const chunk = (type: string, data: Buffer) => {
		const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
		const out = Buffer.alloc(12 + data.length);
		out.writeUInt32BE(data.length, 0);
		body.copy(out, 4);
		out.writeUInt32BE(crc(body), 8 + data.length);
		return out;
	};
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = 0; // greyscale
	const rows = Buffer.alloc((width + 1) * height, shade);
	for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}
